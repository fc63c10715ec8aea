/**
 * The valuation page in a real browser, over the demo `customer_churn` (2,000 rows): choose the dataset,
 * see the correlation heatmap and switch its method, see the feature importance and each model's
 * accuracy; every number in the page's tables equals the JSON API's answer to the same request (asked
 * with a bearer token, as a client would). The analysis says it runs and is sent once. Axe, a phone's
 * width and loopback-only requests.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, type Harness, USER } from "../support/browser.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { DEMO_DB, DEMO_TABULAR } from "../../services/demo/seed.ts";
import { tabularDemo } from "../../core/demo/datasets.ts";

const SHOTS = new URL("../../docs/screenshots/", import.meta.url);
/** Few folds keep the test fast; the page and the API get the same request. */
const FOLDS = 3;

async function* rows<T>(it: Iterable<T>) {
  yield* it;
}

/** The text of every cell of the table in the region named `name`, row by row (header first). */
async function tableText(page: Page, name: string): Promise<string[][]> {
  return await page.getByRole("region", { name, exact: true }).locator("tr").evaluateAll((trs) =>
    trs.map((r) => [...r.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim()))
  );
}

async function checkPage(h: Harness, page: Page, what: string) {
  await h.axe(page, what);
  const [scroll, width] = await page.evaluate(() => {
    const w = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: { scrollWidth: number } };
    };
    return [w.document.documentElement.scrollWidth, w.innerWidth];
  });
  assert.ok(scroll <= width, `${what}: the page scrolls sideways (${scroll} > ${width})`);
}

/** A JSON API answer, with a token from the realm's password grant (as any client gets one). */
async function api(h: Harness, path: string, body: unknown) {
  const form = new URLSearchParams({
    grant_type: "password",
    client_id: "tessera",
    client_secret: "tessera-secret",
    username: USER.username,
    password: USER.password,
  });
  const realm = h.app.config.TESSERA_REALM;
  const token = await fetch(`${h.app.url}/realms/${realm}/protocol/openid-connect/token`, {
    method: "POST",
    body: form,
  });
  assert.equal(token.status, 200);
  const { access_token } = await token.json();
  const res = await fetch(`${h.app.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200);
  return await res.json();
}

/** A table's number as shown ("-0.445", "85.50 %", "—") and the API's, equal to the shown precision. */
function sameNumber(text: string, value: number | null, decimals: number, what: string) {
  if (value === null) return assert.equal(text, "—", what);
  const n = Number(text.replace(" %", ""));
  assert.ok(Math.abs(n - value) <= 0.5 * 10 ** -decimals + 1e-12, `${what}: page ${text}, API ${value}`);
}

browserTest(
  "console: valuation of customer_churn, the heatmap and its method switch, feature importance, the API's numbers",
  async (h, t) => {
    await importRecords(
      h.app.store,
      h.app.config.TESSERA_DB,
      { db: DEMO_DB, collection: DEMO_TABULAR },
      rows(tabularDemo()),
    );
    const page = await h.newPage();
    await h.signIn(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Valuation" }).click();
    await page.waitForURL(/\/console\/valuation$/);
    await checkPage(h, page, "the valuation page");

    await t.step(
      "choose customer_churn and analyse: the page says it runs, and sends the form once",
      async () => {
        await page.getByLabel("Dataset", { exact: true }).selectOption(DEMO_TABULAR);
        await page.getByLabel("Folds").fill(String(FOLDS));
        const before = h.requests.filter((u) => u.includes("/console/valuation?")).length;
        // two submissions in a row, as a double click sends them: the second is dropped, the busy note shows
        const busy = await page.evaluate(() => {
          const d = (globalThis as unknown as {
            document: {
              querySelector(
                s: string,
              ): { requestSubmit(): void; querySelector(s: string): { hidden: boolean } };
            };
          }).document;
          const form = d.querySelector("main form");
          form.requestSubmit();
          form.requestSubmit();
          return !form.querySelector("[data-busy]").hidden;
        });
        assert.ok(busy, "the busy note shows while the analysis runs");
        await page.getByRole("heading", { name: "Feature importance" }).waitFor({ timeout: 30_000 });
        assert.equal(h.requests.filter((u) => u.includes("/console/valuation?")).length - before, 1);
        assert.match(page.url(), /dataset=customer_churn/);
        assert.equal(
          await page.getByLabel("Target").inputValue(),
          "churn",
          "the last column is the default target",
        );
      },
    );

    await t.step(
      "the heatmap, its method switch, and the tables equal the correlation API's numbers",
      async () => {
        const answer = await api(h, `/api/correlations/analyze?dataset-id=${DEMO_TABULAR}`, {
          include_pearson: true,
          include_spearman: true,
          include_kendall: true,
        });
        const label = { pearson: "Pearson", spearman: "Spearman", kendall: "Kendall" } as const;
        for (const m of ["pearson", "spearman", "kendall"] as const) {
          await page.getByRole("radio", { name: label[m] }).check();
          const heatmap = page.getByRole("img", { name: `Correlation heatmap, ${label[m]}` });
          assert.ok(await heatmap.isVisible(), `${m} heatmap shown`);
          for (const other of ["pearson", "spearman", "kendall"].filter((x) => x !== m)) {
            const name = `Correlation heatmap, ${label[other as keyof typeof label]}`;
            assert.ok(
              !(await page.getByRole("img", { name }).isVisible()),
              `${other} hidden while ${m} is chosen`,
            );
          }
          const matrix = answer[m] as Record<string, Record<string, number | null>>;
          const names = Object.keys(matrix);
          const [head, ...body] = await tableText(page, `${label[m]} correlation coefficients`);
          assert.deepEqual(head.slice(1), names);
          assert.deepEqual(body.map((r) => r[0]), names);
          for (const [a, ...cells] of body) {
            cells.forEach((text, j) => sameNumber(text, matrix[a][names[j]], 3, `${m} ${a} × ${names[j]}`));
          }
          // the value on hover: each cell's title
          const hover = await heatmap.locator("g > title").first().textContent();
          assert.equal(hover, `${names[0]} × ${names[0]}: ${matrix[names[0]][names[0]]!.toFixed(3)}`);
          assert.match(page.url(), new RegExp(`corr=${m}`), "the address keeps the method");
        }
        await checkPage(h, page, "the heatmap");
      },
    );

    await t.step(
      "feature importance and the models' accuracy equal the feature-importance API's",
      async () => {
        const answer = await api(h, `/api/feature-importance/analyze?dataset-id=${DEMO_TABULAR}`, {
          folds: FOLDS,
        });
        assert.ok(
          await page.getByRole("img", { name: `Feature importance, ${answer.best_model}` }).isVisible(),
        );
        const [head, ...body] = await tableText(page, "Feature importance by feature");
        assert.deepEqual(head, ["Feature", "Importance"]);
        assert.deepEqual(
          body.map((r) => r[0]),
          answer.feature_importance.map((f: { Feature: string }) => f.Feature),
        );
        body.forEach(([feature, text], i) =>
          sameNumber(text, answer.feature_importance[i].Importance, 3, `importance of ${feature}`)
        );
        const models = (await tableText(page, "Accuracy by model")).slice(1);
        assert.deepEqual(models.map((r) => r[0].replace(/best$/, "")), answer.model_names);
        assert.ok(models[0][0].endsWith("best"), "the best model is marked");
        models.forEach(([model, text], i) =>
          sameNumber(text, answer.accuracy_scores[i] * 100, 2, `accuracy of ${model}`)
        );
        assert.ok(await page.getByRole("img", { name: "Model accuracy, mean cross-validated" }).isVisible());
        await checkPage(h, page, "feature importance");
        if (Deno.env.get("UPDATE_SCREENSHOTS")) {
          await page.getByRole("radio", { name: "Pearson" }).check();
          await page.screenshot({ path: new URL("valuation.png", SHOTS).pathname, fullPage: true });
        }
      },
    );

    await t.step("a bad setting is refused next to its field; the correlations still show", async () => {
      await page.getByLabel("Folds").fill("1");
      await page.getByRole("button", { name: "Analyse" }).click();
      await page.waitForURL(/folds=1/);
      const folds = page.getByLabel("Folds");
      assert.equal(await folds.getAttribute("aria-invalid"), "true");
      const described = (await folds.getAttribute("aria-describedby"))!.split(" ").at(-1);
      assert.match(await page.locator(`#${described}`).textContent() ?? "", /greater than or equal to 2/);
      assert.ok(await page.getByRole("img", { name: /^Correlation heatmap/ }).first().isVisible());
      assert.equal(await page.getByRole("heading", { name: "Feature importance" }).count(), 0);
      await checkPage(h, page, "a refused setting");
    });

    await t.step("on a phone", async () => {
      const phone = await h.newPage({ width: 390, height: 844 });
      await h.signIn(phone);
      await phone.goto(`${h.app.url}/console/valuation?dataset=${DEMO_TABULAR}&folds=${FOLDS}&corr=kendall`);
      assert.ok(await phone.getByRole("img", { name: "Correlation heatmap, Kendall" }).isVisible());
      await checkPage(h, phone, "valuation on a phone");
    });

    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
);
