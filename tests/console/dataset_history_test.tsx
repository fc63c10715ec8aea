/**
 * A dataset's history on its console page (routes/console/shared/decision_history.tsx), without a browser:
 * an upload and then a replacing one are listed newest first with who uploaded them and the counts; more
 * than a page links to the older ones by `before`; the component alone has an empty state and an
 * `actions` column when a page gives one.
 */
import assert from "node:assert/strict";
import { authTestApp } from "../support/app.ts";
import { ORIGIN, signInAt } from "../support/console_session.ts";
import { decisionsRef, newEntry } from "../../services/decisions/entry.ts";
import { listDecisions } from "../../services/decisions/list.ts";
import { DecisionHistory } from "../../routes/console/shared/decision_history.tsx";

/** The cells of the history table's body rows, as text. */
function historyRows(html: string): string[][] {
  const table = /aria-label="History of this dataset"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html);
  if (!table) return [];
  return [...table[1].matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      c[1].replace(/<br\s*\/?>/g, " | ").replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").trim()
    )
  );
}

Deno.test("console: a dataset's history lists an upload, then its replacement, newest first", async () => {
  const t = await authTestApp();
  try {
    const { cookie, csrf } = await signInAt(t, "/console/datasets", "wonderland");
    const upload = async (name: string, text: string, replace: boolean) => {
      const body = new FormData();
      body.append("_csrf", csrf);
      body.append("database", "uploads");
      body.append("name", "people");
      if (replace) body.append("replace", "true");
      body.append("file", new File([text], name, { type: "text/csv" }));
      const res = await t.app.request("/console/datasets", {
        method: "POST",
        headers: { cookie, origin: ORIGIN },
        body,
      });
      assert.equal(res.status, 303, await res.text());
    };
    const page = async (q = "") => {
      const res = await t.app.request(`/console/datasets/people${q}`, { headers: { cookie } });
      assert.equal(res.status, 200);
      return await res.text();
    };
    await upload("people.csv", "name,age\nana,31\nbo,7\ncy,12\n", false);
    assert.match(await page(), /<h2 id="history">History<\/h2>/);
    await upload("people-2.csv", "name,age\ndi,40\ned,2\n", true);
    const rows = historyRows(await page());
    assert.deepEqual(rows.map((r) => r.slice(1, 4)), [
      ["alice", "Replace", "2 imported, 3 replaced"],
      ["alice", "Import", "3 imported"],
    ]);
    assert.match(rows[0][0], /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    assert.equal(rows[0][4], "—", "no run, job or write-back");
    assert.match(rows[0][5], /^mode: replace \| via: console \| file: people-2\.csv \| format: csv/);
    assert.match(rows[1][5], /^mode: append \| via: console \| file: people\.csv/);

    // more than a page: the newest 50, and a link to the older ones
    const old = Array.from({ length: 50 }, (_, i) => ({
      ...newEntry("dataset_import", { sub: "cli:bob", username: "bob" }, {
        dataset: "people",
        counts: { imported: i },
      }),
      _id: `00000000000000000000${String(i).padStart(4, "0")}`, // older than any id made now
    }));
    await t.store.insertMany(decisionsRef(t.config.TESSERA_DB), old.map((e) => ({ ...e })));
    const first = await page();
    assert.equal(historyRows(first).length, 50);
    const next = /href="\/console\/datasets\/people\?before=([0-9a-f]{24})#history">Older decisions/.exec(
      first,
    );
    assert.ok(next, "a link to the older decisions");
    const older = historyRows(await page(`?before=${next[1]}`));
    assert.deepEqual(older.map((r) => [r[1], r[3]]), [["bob", "1 imported"], ["bob", "0 imported"]]);
    assert.match(await page(`?before=${next[1]}`), /Back to the newest/);
    // a `before` that is no entry id shows the newest
    assert.equal(historyRows(await page("?before=nonsense"))[0][2], "Replace");
  } finally {
    await t.close();
  }
});

Deno.test("decision history: an empty state, and an actions column when a page gives one", async () => {
  const empty = String(await <DecisionHistory entries={[]} empty="Nothing decided yet." />);
  assert.match(empty, /<p class="empty">Nothing decided yet\.<\/p>/);
  assert.doesNotMatch(empty, /<table/);
  const t = await authTestApp();
  try {
    const entry = newEntry("writeback", { sub: "u1", username: null }, {
      task: "loans",
      run_id: "run-0123456789abcdef",
      writeback_id: "wb1",
      counts: { written: 12 },
      facts: { field: "y_fair", regions: [1, 2, 3, 4, 5, 6, 7], seed: 7, note: null },
    });
    await t.store.insertMany(decisionsRef(t.config.TESSERA_DB), [{ ...entry }]);
    const { decisions } = await listDecisions(t, { task: "loans", limit: 5 });
    const html = String(
      await (
        <DecisionHistory
          entries={decisions}
          label="History of this dataset"
          actions={(e) => <button type="submit" value={e.entry_id}>Undo</button>}
        />
      ),
    );
    const [row] = historyRows(html);
    assert.deepEqual(row.slice(1), [
      "u1",
      "Write-back",
      "12 written",
      "run run-012345… | write-back wb1",
      "field: y_fair | regions: 1, 2, 3, 4, 5, +2 more | seed: 7",
      "Undo",
    ]);
    assert.match(html, /<th scope="col"\s*>Actions<\/th>/);
    assert.match(html, new RegExp(`value="${entry._id}"`));
  } finally {
    await t.close();
  }
});
