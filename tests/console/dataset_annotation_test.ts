/**
 * A dataset's annotation page and its delete in a real browser: on an uploaded weather CSV, semantic types
 * and a concept mapping to WeatherObserved are run from the form and shown as tables (expected types and
 * pairs from docs/annotation.md's walkthrough of the same rows), the mapping is accepted and stored as
 * POST /data_model_info and POST /schema store it (read back through the annotation records service), the
 * earlier runs are listed, and the dataset is deleted after its confirmation step; axe on every state.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Page } from "playwright-core";
import { browserTest } from "../support/browser.ts";
import { findDataset } from "../../services/datasets/registry.ts";
import { listModelInfo, listSchemas } from "../../services/annotation/dataset_records.ts";

const WEATHER = "station_id,date,temp,rh,lat,lon,observer_email\n" +
  "S-01,2024-03-01T06:00:00Z,3.5,0.81,45.07,7.69,ana@example.org\n" +
  "S-02,2024-03-01T06:00:00Z,4.1,0.77,45.11,7.64,bo@example.org\n" +
  "S-03,2024-03-01T06:00:00Z,2.9,0.85,45.04,7.71,ana@example.org\n";

async function tableText(page: Page, name: string): Promise<string[][]> {
  return await page.getByRole("region", { name, exact: true }).locator("tr").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim()))
  );
}

browserTest("console: annotate a dataset, accept the mapping, delete it", async (h, t) => {
  const page = await h.newPage();
  await h.signIn(page);
  await page.getByRole("link", { name: "Datasets", exact: true }).click();
  await page.getByLabel("Database", { exact: true }).fill("mydb");
  await page.getByLabel("File").setInputFiles({
    name: "weather.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(WEATHER),
  });
  await page.getByRole("button", { name: "Upload" }).click();
  await page.waitForURL(/\/console\/datasets\/weather\?imported=3$/);
  await h.axe(page, "the dataset page");

  await t.step("semantic types: one row per column with its type", async () => {
    await page.getByRole("link", { name: /^Annotation/ }).click();
    await page.waitForURL(/\/console\/datasets\/weather\/annotation$/);
    assert.match(await page.locator("main, body").first().textContent() ?? "", /No annotations yet/);
    await h.axe(page, "the annotation page, empty");
    await page.getByLabel("Procedure", { exact: true }).selectOption("semantic_types");
    await page.getByRole("button", { name: "Run annotation" }).click();
    await page.waitForURL(/annotation\?record=console-semantic_types$/);
    const types = (await tableText(page, "Semantic types")).slice(1).map((r) => r.slice(0, 2));
    assert.deepEqual(types, [
      ["station_id", "identifier"],
      ["date", "datetime"],
      ["temp", "float"],
      ["rh", "float"],
      ["lat", "latitude"],
      ["lon", "longitude"],
      ["observer_email", "email"],
    ]);
  });

  await t.step("concept mapping to WeatherObserved: candidates and the proposed mapping", async () => {
    await page.getByLabel("Procedure", { exact: true }).selectOption("concept_mapping");
    await page.getByLabel("Data model", { exact: true }).selectOption("WeatherObserved");
    await page.getByRole("button", { name: "Run annotation" }).click();
    await page.waitForURL(/annotation\?record=console-concept_mapping$/);
    const pairs = Object.fromEntries(
      (await tableText(page, "Proposed mapping")).slice(1).map((r) => [r[0], r[1]]),
    );
    assert.equal(pairs.temp, "temperature");
    assert.equal(pairs.rh, "relativeHumidity");
    assert.equal(pairs.date, "dateObserved");
    assert.equal(pairs.station_id, "id");
    assert.equal(pairs.lat, "location");
    assert.equal(pairs.lon, "location");
    const candidates = await tableText(page, "Candidate properties");
    assert.equal(candidates.length, 8); // header + one row per column
    await h.axe(page, "the annotation page with a mapping");
  });

  await t.step("accept the mapping: stored as /data_model_info and /schema store it", async () => {
    await page.getByRole("button", { name: "Accept mapping" }).click();
    await page.waitForURL(/annotation\?accepted=1/);
    assert.match(await page.getByRole("status").first().textContent() ?? "", /Mapping accepted/);
    const deps = { store: h.app.store, config: h.app.config };
    const info = await listModelInfo(deps, "weather");
    assert.deepEqual(
      info.map((i) => [i.distribution_id, i.data_model_id, i.concept_name]),
      [["mydb.weather", "WeatherObserved", "WeatherObserved"]],
    );
    const schemas = await listSchemas(deps, "weather");
    assert.equal(schemas.length, 1);
    assert.equal(schemas[0].distribution_id, "mydb.weather");
    const fields = schemas[0].fields as { name: string; property: string; unit?: string }[];
    const byName = Object.fromEntries(fields.map((f) => [f.name, f.property]));
    assert.equal(byName.temp, "temperature");
    assert.equal(byName.rh, "relativeHumidity");
    assert.equal(byName.lat, "location");
    // the page shows what is stored
    const shown = Object.fromEntries(
      (await tableText(page, "Stored mapping")).slice(1).map((r) => [r[0], r[1]]),
    );
    assert.deepEqual(shown, byName);
    // both runs are listed
    const earlier = (await tableText(page, "Earlier annotations")).slice(1).map((r) => r.slice(0, 2)).sort();
    assert.deepEqual(earlier, [
      ["console-concept_mapping", "concept_mapping"],
      ["console-semantic_types", "semantic_types"],
    ]);
    await h.axe(page, "the annotation page after accepting");
  });

  await t.step(
    "the annotation page with its tables fits a phone (390×844) without sideways scrolling",
    async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.goto(`${page.url().split("?")[0]}?record=console-concept_mapping`);
      const [scroll, width] = await page.evaluate(() => {
        const w = globalThis as unknown as {
          innerWidth: number;
          document: { documentElement: { scrollWidth: number } };
        };
        return [w.document.documentElement.scrollWidth, w.innerWidth];
      });
      assert.ok(scroll <= width, `the page scrolls sideways (${scroll} > ${width})`);
      await h.axe(page, "the annotation page on a phone");
      await page.setViewportSize({ width: 1280, height: 800 });
    },
  );

  await t.step("delete: a confirmation step, then the dataset is gone from the list", async () => {
    await page.getByRole("link", { name: "← weather" }).click();
    await page.getByRole("button", { name: "Delete dataset" }).click();
    await page.getByRole("button", { name: "Confirm delete" }).waitFor();
    // nothing is deleted before the confirmation
    assert.ok(await findDataset(h.app.store, h.app.config.TESSERA_DB, "weather"));
    await h.axe(page, "the delete confirmation");
    await page.getByRole("button", { name: "Confirm delete" }).click();
    await page.waitForURL(/\/console\/datasets$/);
    assert.equal(await findDataset(h.app.store, h.app.config.TESSERA_DB, "weather"), null);
    assert.equal(await h.app.store.count({ db: "mydb", collection: "weather" }), 0);
    assert.equal(await page.getByRole("link", { name: "weather", exact: true }).count(), 0);
    assert.match(await page.textContent("body") ?? "", /No datasets yet/);
  });
  assert.deepEqual(h.problems, []);
});
