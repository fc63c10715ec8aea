/**
 * The datasets pages in a real browser: a CSV and a TSV uploaded through the form show up in the list
 * and on their page (first rows, columns with their inferred types); a bad file is refused next to the
 * File field and nothing is imported; an upload and then a replacing one are listed in the dataset's
 * History, newest first.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest } from "../support/browser.ts";
import { findDataset } from "../../services/datasets/registry.ts";

import { Buffer } from "node:buffer";

/** The text of every cell of a table, row by row (header row first). */
async function tableText(page: Page, name: string): Promise<string[][]> {
  return await page.getByRole("region", { name }).locator("tr").evaluateAll((rows) =>
    rows.map((r) => [...r.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim()))
  );
}

async function upload(
  page: Page,
  file: { name: string; mimeType: string; text: string },
  fields: Record<string, string> = {},
) {
  for (const [label, value] of Object.entries(fields)) {
    await page.getByLabel(label, { exact: true }).fill(value);
  }
  await page.getByLabel("File").setInputFiles({
    name: file.name,
    mimeType: file.mimeType,
    buffer: Buffer.from(file.text),
  });
  await page.getByRole("button", { name: "Upload" }).click();
}

browserTest("console: upload a dataset, see it listed and previewed", async (h, t) => {
  const page = await h.newPage();
  await h.signIn(page);
  await page.getByRole("link", { name: "Datasets", exact: true }).click();
  await page.waitForURL(/\/console\/datasets$/);

  await t.step("a CSV: its page shows the columns with their types and the first rows", async () => {
    await upload(page, {
      name: "people.csv",
      mimeType: "text/csv",
      text:
        'id,name,age,member,joined\n1,Ada,36,true,2024-01-05\n2,Lin,,false,2023-11-30\n3,"Ng, Jo",51,true,2022-02-01\n',
    });
    await page.waitForURL(/\/console\/datasets\/people\?imported=3$/);
    assert.match(await page.getByRole("status").textContent() ?? "", /3 rows added/);
    assert.deepEqual(await tableText(page, "Columns and their inferred types"), [
      ["#", "Column", "Inferred type"],
      ["1", "id", "integer"],
      ["2", "name", "string"],
      ["3", "age", "integer"],
      ["4", "member", "boolean"],
      ["5", "joined", "string"],
    ]);
    assert.deepEqual(await tableText(page, "First rows"), [
      ["id", "name", "age", "member", "joined"],
      ["1", "Ada", "36", "true", "2024-01-05"],
      ["2", "Lin", "—", "false", "2023-11-30"],
      ["3", "Ng, Jo", "51", "true", "2022-02-01"],
    ]);
    const rec = await findDataset(h.app.store, h.app.config.TESSERA_DB, "people");
    assert.equal(rec?.database, "uploads");
    assert.equal(rec?.rows, 3);
  });

  await t.step("a TSV into a named dataset and database; the list shows both", async () => {
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await upload(
      page,
      {
        name: "readings.tsv",
        mimeType: "text/tab-separated-values",
        text: "sensor\tvalue\nA\t0.5\nB\t1.25\n",
      },
      { "Database": "lab", "Dataset name": "sensor_values" },
    );
    await page.waitForURL(/\/console\/datasets\/sensor_values\?imported=2$/);
    assert.deepEqual(
      (await tableText(page, "Columns and their inferred types")).slice(1).map((r) => r.slice(1)),
      [
        ["sensor", "string"],
        ["value", "number"],
      ],
    );
    await page.getByRole("link", { name: "All datasets" }).click();
    const list = (await tableText(page, "Datasets")).map((r) => r.slice(0, 4));
    assert.deepEqual(list, [
      ["Name", "Database", "Rows", "Columns"],
      ["people", "uploads", "3", "5"],
      ["sensor_values", "lab", "2", "2"],
    ]);
  });

  await t.step(
    "a file of an unknown kind is refused next to the File field; nothing is imported",
    async () => {
      await upload(page, { name: "notes.txt", mimeType: "text/plain", text: "a,b\n1,2\n" });
      const file = page.getByLabel("File");
      assert.equal(await file.getAttribute("aria-invalid"), "true");
      const described = (await file.getAttribute("aria-describedby"))!.split(" ").at(-1);
      assert.match(await page.locator(`#${described}`).textContent() ?? "", /\.csv, \.tsv, \.ndjson/);
      assert.equal(await findDataset(h.app.store, h.app.config.TESSERA_DB, "notes"), null);
    },
  );

  await t.step("a CSV with a broken row names the line, and nothing is imported", async () => {
    await upload(page, { name: "broken.csv", mimeType: "text/csv", text: "a,b\n1,2\n3\n" });
    const described = (await page.getByLabel("File").getAttribute("aria-describedby"))!.split(" ").at(-1);
    assert.match(
      await page.locator(`#${described}`).textContent() ?? "",
      /broken\.csv: line 3: expected 2 fields, found 1/,
    );
    assert.equal(await findDataset(h.app.store, h.app.config.TESSERA_DB, "broken"), null);
  });

  await t.step("Tessera's own database is refused next to the Database field", async () => {
    await upload(page, { name: "x.csv", mimeType: "text/csv", text: "a\n1\n" }, {
      "Database": h.app.config.TESSERA_DB,
    });
    const db = page.getByLabel("Database", { exact: true });
    assert.equal(await db.getAttribute("aria-invalid"), "true");
    assert.equal(await db.inputValue(), h.app.config.TESSERA_DB, "the values are kept");
  });

  await t.step("an NDJSON file", async () => {
    await upload(page, {
      name: "events.ndjson",
      mimeType: "application/x-ndjson",
      text: '{"kind":"a","n":1}\n{"kind":"b","n":2.5}\n',
    }, { "Database": "uploads" });
    await page.waitForURL(/\/console\/datasets\/events\?imported=2$/);
  });

  await t.step("an upload, then a replacing one: the History lists both, newest first", async () => {
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await upload(
      page,
      { name: "scores.csv", mimeType: "text/csv", text: "id,score\n1,0.5\n2,0.7\n3,0.9\n" },
      {
        "Database": "uploads",
      },
    );
    await page.waitForURL(/\/console\/datasets\/scores\?imported=3$/);
    await page.getByRole("link", { name: "Datasets", exact: true }).click();
    await page.getByLabel("Replace the rows of a dataset with this name").check();
    await upload(page, { name: "scores.csv", mimeType: "text/csv", text: "id,score\n4,0.1\n5,0.2\n" }, {
      "Database": "uploads",
    });
    await page.waitForURL(/\/console\/datasets\/scores\?imported=2&replaced=3$/);
    const rows = (await tableText(page, "History of this dataset")).map((r) => r.slice(1, 4));
    assert.deepEqual(rows, [
      ["Who", "Decision", "Counts"],
      ["alice", "Replace", "2 imported, 3 replaced"],
      ["alice", "Import", "3 imported"],
    ]);
    await h.axe(page, "a dataset page with its history");
  });

  assert.deepEqual(h.foreignRequests(), []);
  assert.deepEqual(h.problems, []);
});
