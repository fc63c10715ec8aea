/**
 * The whole spatial review in a real browser, on the demo data (services/demo/seed.ts: 50,000 loan
 * decisions in a 5 × 5 grid whose cells 6, 12 and 18 get a harsher model): sign in → the task → an
 * audit → the regions table and the maps → relabel with a region frozen → write back → confirm → every
 * document has the field → its report → History: undo the write-back → confirm → the field is gone →
 * mark done. Then the thresholds, a refused mapping shown next to its field, axe-core on each
 * page at 1280×800 and 390×844 (no sideways scrolling), and no request leaving loopback.
 *
 * Expected numbers come from the demo's own generator, counted here (core/demo/datasets.ts), never from
 * the service's answers: each region's individuals and positives under equal opportunity, the flip
 * budget floor(0.2 · N), the test part of the 70/30 stratified split.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, type Harness } from "../support/browser.ts";
import { seedDemo } from "../../services/demo/seed.ts";
import { spatialDemo } from "../../core/demo/datasets.ts";
import { exportRows } from "../../services/datasets/export.ts";
import { getTaskDocument } from "../../services/tasks/task_documents.ts";

/** The few browser globals the checks read (the test is type-checked without the DOM library). */
interface Win {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(s: string): ArrayLike<{ complete: boolean; naturalWidth: number; alt: string }>;
  };
}

/** Per grid cell of the demo: individuals with y_true = 1 (the audit's scope), and of them predicted 1. */
function demoCounts() {
  const cells = new Map<number, { n: number; p: number }>();
  let all = 0, ones = 0;
  for (const row of spatialDemo()) {
    all++;
    if (row.y_true !== 1) continue;
    ones++;
    const cell = (row.region_ids as number[])[0];
    const c = cells.get(cell) ?? { n: 0, p: 0 };
    c.n++;
    if (row.y_pred === 1) c.p++;
    cells.set(cell, c);
  }
  return { cells, all, ones };
}

const num = (text: string) => Number(text.replace(/[^\d.-]/g, ""));

/** The body rows of the table named "Regions", as cell texts. */
async function regionRows(page: Page): Promise<string[][]> {
  const rows = page.getByRole("table", { name: "Regions" }).locator("tbody tr");
  return await rows.evaluateAll((trs) =>
    trs.map((tr) =>
      Array.from((tr as unknown as { children: ArrayLike<{ textContent: string | null }> }).children)
        .map((td) => (td.textContent ?? "").trim())
    )
  );
}

/** Every map image of the page has loaded (an 800-pixel PNG from the run). */
async function mapsLoaded(page: Page, what: string) {
  await page.waitForLoadState("load");
  const imgs = await page.evaluate(() =>
    Array.from((globalThis as unknown as Win).document.querySelectorAll("figure.map img"))
      .map((i) => ({ ok: i.complete && i.naturalWidth === 800, alt: i.alt }))
  );
  assert.ok(imgs.length > 0, `${what}: no map`);
  for (const i of imgs) assert.ok(i.ok, `${what}: map "${i.alt}" did not load`);
}

/** axe-core, and no sideways scrolling, at the page's viewport. */
async function checkPage(h: Harness, page: Page, what: string) {
  const [scroll, width] = await page.evaluate(() => {
    const w = globalThis as unknown as Win;
    return [w.document.documentElement.scrollWidth, w.innerWidth];
  });
  assert.ok(scroll <= width, `${what}: the page scrolls sideways (${scroll} > ${width})`);
  await h.axe(page, what);
}

/** The same page on a phone (a new context: signs in again). */
async function onPhone(h: Harness, url: string, what: string) {
  const phone = await h.newPage({ width: 390, height: 844 });
  await h.signIn(phone);
  await phone.goto(url);
  await mapsLoaded(phone, `${what} on a phone`);
  await checkPage(h, phone, `${what} at 390×844`);
}

/** Selects a button that runs a service, and waits for the run page it leads to. */
async function runFrom(page: Page, button: string): Promise<string> {
  const before = page.url();
  await page.getByRole("button", { name: button, exact: true }).click();
  await page.waitForURL((u) => /\/runs\/[^/]+$/.test(u.pathname) && u.href !== before, { timeout: 120_000 });
  return page.url().replace(/#.*$/, "");
}

/** A file a link downloads (fetched by the page, with its session). */
function download(page: Page, name: string): Promise<{ type: string; text: string }> {
  return page.getByRole("link", { name }).first().getAttribute("href").then((href) =>
    page.evaluate(async (u) => {
      const res = await fetch(u!);
      return { type: res.headers.get("content-type") ?? "", text: await res.text() };
    }, href)
  );
}

const statValue = (page: Page, label: string) =>
  page.locator(".stat").filter({ has: page.locator("dt", { hasText: new RegExp(`^${label}$`) }) })
    .locator(".stat-value").innerText();

browserTest(
  "console: the spatial review on the demo data, from sign-in to write-back and mark done",
  async (h, t) => {
    await seedDemo(h.app.store, h.app.config.TESSERA_DB);
    const demo = demoCounts();
    const page = await h.newPage();
    await h.signIn(page);
    await page.getByRole("link", { name: "loan_approvals" }).click();
    await page.waitForURL(/\/console\/tasks\/loan_approvals$/);
    let auditUrl = "";

    await t.step("the task's page: the mapping suggested, the audit's defaults filled", async () => {
      assert.equal(await page.getByLabel("Prediction (y_pred)").inputValue(), "y_pred");
      assert.equal(await page.getByLabel("Probability (y_pred_prob)").inputValue(), "y_pred_prob");
      assert.equal(await page.getByLabel("Region ids (region_ids)").inputValue(), "region_ids");
      assert.equal(await page.getByLabel("Worlds").inputValue(), "400");
      assert.equal(await page.getByLabel("Significance level").inputValue(), "0.005");
      assert.equal(await page.getByLabel("Fairness notion").inputValue(), "true");
      assert.equal(await page.getByLabel("Budget (%)").inputValue(), "20");
      assert.equal(await page.getByLabel("Tolerance (%)").inputValue(), "10");
      await checkPage(h, page, "the task's review page");
    });

    await t.step("a mapping the data refuses is shown next to its field, nothing runs", async () => {
      await page.getByLabel("Prediction (y_pred)").selectOption("lat");
      await page.getByLabel("Worlds").fill("99");
      await page.getByRole("button", { name: "Run audit" }).click();
      await page.waitForLoadState();
      const select = page.getByLabel("Prediction (y_pred)");
      assert.equal(await select.getAttribute("aria-invalid"), "true");
      const error = await page.locator("#f-map_y_pred-error").innerText();
      assert.match(error, /lat/);
      assert.equal(await page.getByLabel("Worlds").inputValue(), "99", "the values are kept");
      await checkPage(h, page, "the review page with a refused field");
      await select.selectOption("y_pred");
    });

    await t.step("audit: the regions as the demo has them, significant first, the maps", async () => {
      auditUrl = await runFrom(page, "Run audit");
      const rows = await regionRows(page);
      assert.equal(rows.length, 25);
      for (const [region, n, p] of rows) {
        const want = demo.cells.get(Number(region))!;
        assert.deepEqual([num(n), num(p)], [want.n, want.p], `region ${region}`);
      }
      // the planted cells (a model 1.2 logits harsher) are significant, and significant rows come first
      const signif = rows.filter((r) => r[6] === "Yes").map((r) => Number(r[0]));
      for (const cell of [6, 12, 18]) assert.ok(signif.includes(cell), `cell ${cell} is significant`);
      assert.deepEqual(rows.slice(0, signif.length).map((r) => r[6]), signif.map(() => "Yes"));
      assert.equal(await statValue(page, "Significant regions"), `${signif.length} of 25`);
      await mapsLoaded(page, "the audit");
      assert.ok(await page.getByRole("img", { name: /^Fair map/ }).isVisible());
      assert.ok(await page.getByRole("img", { name: /^Distribution map/ }).isVisible());

      // the region statistics as CSV, one line per region
      const csv = await download(page, "Download region statistics (CSV)");
      assert.match(csv.type, /^text\/csv/);
      const lines = csv.text.trimEnd().split("\r\n");
      assert.equal(lines.length, 26);
      assert.match(lines[0], /^idx,region_id,n,p,rate,rate_difference,/);

      // sorting by individuals, largest first
      await page.getByRole("link", { name: /^Individuals/ }).click();
      await page.waitForURL(/sort=n&dir=desc/);
      const sizes = (await regionRows(page)).map((r) => num(r[1]));
      assert.deepEqual(sizes, [...sizes].sort((a, b) => b - a));

      // the interactive map opens inline, sandboxed, with nothing refused by the policies
      await page.getByText("Explore here").first().click();
      const frame = page.frameLocator("iframe").first();
      await frame.locator(".leaflet-container").waitFor({ timeout: 30_000 });
      await checkPage(h, page, "the audit result");
      await onPhone(h, auditUrl, "the audit result");
    });

    let runUrl = "";
    let flips = 0;
    await t.step("relabel: metrics before and after, the maps, flips per region", async () => {
      await page.goto(auditUrl);
      // region 6 (a planted cell) ticked under "Freeze" in the Regions table: none of its members flips
      await page.getByRole("checkbox", { name: /^Freeze region 6:/ }).check();
      runUrl = await runFrom(page, "Relabel");
      assert.notEqual(runUrl, auditUrl);
      assert.ok(await page.getByRole("checkbox", { name: /^Freeze region 6:/ }).isChecked());
      flips = num(await statValue(page, "Flips"));
      const budget = Math.floor(0.2 * demo.ones); // budget 20 % of the individuals audited
      assert.ok(flips > 0 && flips <= budget, `${flips} flips within the budget ${budget}`);
      assert.match(
        await page.locator(".stat", { hasText: "Flips" }).innerText(),
        new RegExp(`of ${budget.toLocaleString("en-US")} allowed`),
      );
      const metrics = page.getByRole("table", { name: "Metrics before and after" });
      assert.ok(await metrics.getByRole("rowheader", { name: "SBI" }).isVisible());
      assert.ok(await metrics.getByRole("rowheader", { name: "Accuracy" }).isVisible());
      const rows = await regionRows(page);
      assert.equal(rows.length, 25);
      // the flips per region add up (disjoint regions: each flip is in one region)
      const perRegion = rows.reduce(
        (s, r) => s + r[2].split("/").reduce((a, x) => a + Math.abs(num(x) || 0), 0),
        0,
      );
      assert.equal(perRegion, flips);
      const six = rows.find((r) => r[0] === "6")!;
      assert.equal(
        six[2].split("/").reduce((a, x) => a + Math.abs(num(x) || 0), 0),
        0,
        `region 6: ${six[2]}`,
      );
      for (const name of [/^Fair map before/, /^Fair map after/, /^Flips map/]) {
        assert.ok(await page.getByRole("img", { name }).isVisible(), String(name));
      }
      await mapsLoaded(page, "the relabel");
      const preds = await download(page, "Download final predictions (CSV)");
      const lines = preds.text.trimEnd().split("\r\n");
      assert.equal(lines.length, demo.all + 1);
      assert.equal(lines.filter((l) => l.endsWith(",true")).length, flips);
      await checkPage(h, page, "the relabel result");
      await onPhone(h, runUrl, "the relabel result");
    });

    await t.step("write back: confirm, then every document has the field", async () => {
      await page.getByLabel("New field").fill("fair_pred");
      await page.getByRole("button", { name: "Write back" }).click();
      await page.waitForURL(/\/writeback\?new_field=fair_pred$/);
      const stats = page.getByRole("definition");
      assert.equal(num(await stats.nth(0).locator(".stat-value").innerText()), demo.all);
      assert.equal(num(await stats.nth(1).locator(".stat-value").innerText()), flips);
      await checkPage(h, page, "the write-back confirmation");
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(/\?written=fair_pred/, { timeout: 120_000 });
      const notice = await page.getByRole("status").filter({ hasText: "Written back" }).innerText();
      const all = demo.all.toLocaleString("en-US");
      assert.match(notice, new RegExp(`${all} records matched, ${all} modified`));

      const out = await exportRows(h.app, {
        target: { db: "demo", collection: "loan_approvals" },
        format: "ndjson",
        fields: ["y_pred", "fair_pred"],
      });
      const docs = (await new Response(out.body).text()).trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.equal(docs.length, demo.all);
      assert.ok(docs.every((d) => d.fair_pred === 0 || d.fair_pred === 1), "every document has the field");
      assert.equal(docs.filter((d) => d.fair_pred !== d.y_pred).length, flips);
    });

    await t.step(
      "the relabel's report: one document, its constraint, its write-back, nothing from elsewhere",
      async () => {
        const before = h.requests.length;
        await page.goto(runUrl);
        const href = await page.getByRole("link", { name: /^Report of the run/ }).first().getAttribute(
          "href",
        );
        await page.goto(new URL(href!, page.url()).href);
        assert.equal(await page.getByRole("heading", { level: 1 }).innerText(), "Review report");
        const text = await page.locator("body").innerText();
        assert.match(text, /Frozen regions\s+6/);
        assert.match(text, new RegExp(`Flips\\s+${flips}\\b`));
        assert.match(text, /write-back into field fair_pred/);
        // every map is an inline image that has loaded; the page asked for nothing but itself
        const imgs = await page.locator("img").evaluateAll((els) =>
          els.map((e) => (e as unknown as { complete: boolean; naturalWidth: number; src: string }))
            .map((e) => ({ ok: e.complete && e.naturalWidth > 0, data: e.src.startsWith("data:image/png") }))
        );
        assert.ok(imgs.length >= 3 && imgs.every((i) => i.ok && i.data), JSON.stringify(imgs.length));
        const asked = h.requests.slice(before).filter((u) => u.includes("/report"));
        assert.equal(asked.length, 1, `${asked}`);
        assert.deepEqual(
          h.requests.slice(before).filter((u) => !u.startsWith(h.app.url) && !u.startsWith("data:")),
          [],
        );
        await h.axe(page, "the review report");
        await page.goto(runUrl); // the next steps start from the run's page
      },
    );

    await t.step("history: undo the write-back, confirm, the field is gone from every document", async () => {
      const history = page.getByRole("region", { name: "History", exact: true });
      const rows = history.locator("tbody tr");
      assert.equal(await rows.count(), 1, "the write-back, the task's one decision so far");
      assert.match(await rows.first().innerText(), /Write-back/);
      await history.getByRole("link", { name: /^Undo…/ }).click();
      await page.waitForURL(/\/writebacks\/[^/]+\/undo$/);
      assert.equal(num(await statValue(page, "Documents matched")), demo.all);
      assert.equal(num(await statValue(page, "Documents modified")), demo.all);
      await checkPage(h, page, "the undo's confirmation");
      await page.getByRole("button", { name: "Undo write-back" }).click();
      await page.waitForURL(/\?undone=/, { timeout: 120_000 });
      const notice = await page.getByRole("status").filter({ hasText: "undone" }).innerText();
      const all = demo.all.toLocaleString("en-US");
      assert.match(notice, new RegExp(`${all} documents restored, 0 skipped \\(changed since\\), 0 missing`));
      assert.equal(await rows.count(), 2);
      assert.match(await rows.first().innerText(), /Write-back undone/);
      assert.match(await rows.nth(1).innerText(), /Undone \d{4}-\d\d-\d\d \d\d:\d\d UTC by alice/);
      assert.equal(await history.getByRole("link", { name: /^Undo…/ }).count(), 0);
      await checkPage(h, page, "the task's page after an undo");

      // no document has the field any more (the export refuses a field none has); all are still there
      const target = { db: "demo", collection: "loan_approvals" };
      await assert.rejects(
        exportRows(h.app, { target, format: "ndjson", fields: ["fair_pred"] }),
        /no document of 'loan_approvals' has the field 'fair_pred'/,
      );
      const out = await exportRows(h.app, { target, format: "ndjson", fields: ["y_pred"] });
      const docs = (await new Response(out.body).text()).trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.equal(docs.length, demo.all);
      await page.goto(runUrl); // the next steps start from the run's page
    });

    await t.step("thresholds: charts, the thresholds table, the test part", async () => {
      const url = await runFrom(page, "Thresholds");
      // the stratified 70/30 split: each class's test part is its count minus round(0.7 · count)
      const test = [demo.ones, demo.all - demo.ones].reduce((s, k) => s + k - Math.round(0.7 * k), 0);
      assert.match(
        await page.locator(".params").nth(1).innerText(),
        new RegExp(`judged on the other ${test.toLocaleString("en-US")}`),
      );
      const thresholds = page.getByRole("table", { name: "Decision thresholds" });
      assert.equal(await thresholds.locator("tbody tr").count(), 25);
      assert.ok(
        await page.getByRole("img", { name: /^Bar chart of the fitted decision threshold/ }).isVisible(),
      );
      await mapsLoaded(page, "the thresholds");
      const csv = await download(page, "Download thresholds (CSV)");
      assert.equal(csv.text.trimEnd().split("\r\n").length, 26);
      await checkPage(h, page, "the thresholds result");
      await onPhone(h, url, "the thresholds result");
    });

    await t.step("earlier runs: listed and reopened; mark done", async () => {
      const runs = page.getByRole("table", { name: /Earlier runs/ });
      assert.equal(await runs.locator("tbody tr").count(), 3);
      await runs.locator("tbody tr").nth(2).getByRole("link").first().click(); // the oldest: the audit
      await page.waitForURL(auditUrl);
      assert.equal((await regionRows(page)).length, 25);
      await page.getByRole("button", { name: "Mark done" }).click();
      await page.waitForURL(/marked=loan_approvals/);
      assert.equal((await getTaskDocument(h.app, "loan_approvals")).status, "done");
      assert.ok(await page.getByText("'loan_approvals' is marked done.").isVisible());
    });

    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
);
