/**
 * A task's History and the Undo of a write-back on its console page, without a browser, on both stores,
 * over the eight individuals of SPOTS_CSV. A relabel (budget 25 %, tolerance 0: rows a1 and b2 flip) is
 * written back into `fair`: a1 0, a2 1, a3 1, a4 0, b1 1, b2 1, b3 0, b4 0. Then, by hand, b4's `fair`
 * becomes 7 (changed since) and b3 is deleted, so the undo restores the other six (none had `fair`: it is
 * removed), skips b4 and counts b3 missing.
 *
 * Also: the history newest first (write-back, then its undo above it) and its paging, the confirmation's
 * counts, an undo asked twice, the refusals (409: a later write-back of the field first; 404) shown as
 * messages, and a form without its CSRF token refused.
 */
import assert from "node:assert/strict";
import { importCsv, type StoreApp, storeTest } from "../support/stores.ts";
import {
  getPage,
  ORIGIN,
  postForm,
  type Session,
  signIn,
  SPOTS_CSV,
  SPOTS_SETTINGS,
} from "../support/console_session.ts";
import { createTaskDocument, setTaskStatus } from "../../services/tasks/task_documents.ts";
import { listDecisions } from "../../services/decisions/list.ts";

const SETTINGS = {
  ...SPOTS_SETTINGS,
  budget_pct: "25",
  tolerance_pct: "0",
  approx: "true",
  work_limit: "30",
};

/** The task, a relabel run of it and alice's session; the run's page. */
async function setUp(t: StoreApp): Promise<{ s: Session; run: string }> {
  await importCsv(t, "spots", SPOTS_CSV);
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "spots", status: "pending" });
  const s = await signIn(t, "spots");
  const res = await postForm(t, s, "/console/tasks/spots/review", { ...SETTINGS, action: "relabel" });
  assert.equal(res.status, 303, await res.text());
  return { s, run: res.headers.get("location")!.replace("#result", "") };
}

/** Writes the run back into `field` through the console; the write-back's id, from the task's history. */
async function writeBack(t: StoreApp, s: Session, run: string, field: string): Promise<string> {
  const res = await postForm(t, s, `${run}/writeback`, { new_field: field });
  assert.equal(res.status, 303, await res.text());
  const html = await (await getPage(t, s, "/console/tasks/spots")).text();
  return /href="\/console\/tasks\/spots\/writebacks\/([^/"]+)\/undo"/.exec(html)![1];
}

/** The cells of the "History of this task" table's body rows, as text. */
function historyRows(html: string): string[][] {
  const table = /aria-label="History of this task"[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(html);
  if (!table) return [];
  return [...table[1].matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((c) =>
      c[1].replace(/<span class="visually-hidden">[\s\S]*?<\/span>/g, "").replace(/<br\s*\/?>/g, " | ")
        .replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").trim()
    )
  );
}

/** The documents of `spots` by name: `fair` when they have it ("absent" when not). */
async function fairByName(t: StoreApp): Promise<Record<string, unknown>> {
  const docs = await t.store.list({ db: t.db, collection: "spots" });
  return Object.fromEntries(
    docs.map((d) => [d.name, Object.hasOwn(d, "fair") ? d.fair : "absent"]).sort(),
  );
}

const text = (html: string) => html.replace(/<[^>]+>/g, "").replace(/&#39;/g, "'").replace(/\s+/g, " ");

storeTest("console undo: the history lists a write-back, its undo restores the documents", async (t) => {
  const { s, run } = await setUp(t);
  const empty = await (await getPage(t, s, "/console/tasks/spots")).text();
  assert.match(empty, /<h2 id="history">History<\/h2>/);
  assert.match(empty, /No decision about this task is recorded yet\./);

  const id = await writeBack(t, s, run, "fair");
  const written = { a1: 0, a2: 1, a3: 1, a4: 0, b1: 1, b2: 1, b3: 0, b4: 0 };
  assert.deepEqual(await fairByName(t), written);
  let rows = historyRows(await (await getPage(t, s, "/console/tasks/spots")).text());
  assert.deepEqual(rows.map((r) => [r[1], r[2], r[3], r[6]]), [
    ["alice", "Write-back", "8 matched, 8 modified, 0 not found", "Undo…"],
  ]);

  // by hand: b4 changed since the write-back, b3 deleted
  const ref = { db: t.db, collection: "spots" };
  const ids = Object.fromEntries((await t.store.list(ref)).map((d) => [d.name, d._id]));
  await t.store.patch(ref, ids.b4, { fair: 7 });
  assert.equal(await t.store.delete(ref, ids.b3), true);

  // the confirmation: the field, the run, what the write-back wrote
  const undo = `/console/tasks/spots/writebacks/${id}/undo`;
  let res = await getPage(t, s, undo);
  assert.equal(res.status, 200);
  const confirm = await res.text();
  assert.match(confirm, /<h1>Undo the write-back<\/h1>/);
  assert.match(confirm, /Field <code>fair<\/code> of <code>spots<\/code>/);
  assert.match(confirm, new RegExp(`href="${run}"`));
  assert.match(confirm, /Documents matched<\/dt><dd><span class="stat-value">8</);
  assert.match(confirm, /Documents modified<\/dt><dd><span class="stat-value">8</);
  assert.match(text(confirm), /is skipped: left as it is, and listed afterwards/);
  assert.match(confirm, new RegExp(`<form method="post" action="${undo}"`));
  assert.match(confirm, /<button type="submit" class="btn btn-danger"[^>]*>Undo write-back<\/button>/);

  // without its CSRF token nothing is undone
  const forged = await t.app.request(undo, {
    method: "POST",
    headers: { origin: ORIGIN, cookie: s.cookie },
    body: new URLSearchParams({ _csrf: "not-the-token" }),
  });
  assert.equal(forged.status, 403);
  const { b3: _, ...changed } = { ...written, b4: 7 };
  assert.deepEqual(await fairByName(t), changed);

  // the undo: six restored (the field removed), b4 skipped, b3 missing
  res = await postForm(t, s, undo, {});
  assert.equal(res.status, 303, await res.text());
  const back = res.headers.get("location")!;
  assert.equal(back, `/console/tasks/spots?undone=${id}#history`);
  const after = { a1: "absent", a2: "absent", a3: "absent", a4: "absent", b1: "absent", b2: "absent", b4: 7 };
  assert.deepEqual(await fairByName(t), after);
  const page = await (await getPage(t, s, back.replace("#history", ""))).text();
  assert.match(
    text(page),
    /Write-back into fair undone: 6 documents restored, 1 skipped \(changed since\), 1 missing \(deleted since\)\./,
  );
  assert.match(text(page), new RegExp(`Skipped, left as they are: ${ids.b4} \\(1 in all\\)\\.`));

  // newest first: the undo, then the write-back, now marked undone by alice
  rows = historyRows(page);
  assert.deepEqual(rows.map((r) => [r[1], r[2], r[3]]), [
    ["alice", "Write-back undone", "6 restored, 1 skipped, 1 missing"],
    ["alice", "Write-back", "8 matched, 8 modified, 0 not found"],
  ]);
  assert.equal(rows[0][6], "");
  assert.match(rows[1][6], /^Undone \d{4}-\d\d-\d\d \d\d:\d\d UTC by alice$/);
  assert.doesNotMatch(page, /writebacks\/[^/"]+\/undo"/, "no Undo left");

  // asked again: the same answer, nothing changes, logged once
  res = await postForm(t, s, undo, {});
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), back);
  assert.deepEqual(await fairByName(t), after);
  const undos = await listDecisions(t, { task: "spots", kind: "writeback_undo", limit: 10 });
  assert.equal(undos.decisions.length, 1);
  const again = await (await getPage(t, s, undo)).text();
  assert.match(
    text(again),
    /Already undone \d{4}-\d\d-\d\d \d\d:\d\d UTC by alice: 6 documents restored, 1 skipped, 1 missing\./,
  );
  assert.doesNotMatch(again, /Undo write-back<\/button>/);
});

storeTest("console undo: a refusal is a message on the page, never an error page", async (t) => {
  const { s, run } = await setUp(t);
  const first = await writeBack(t, s, run, "fair");
  const second = await writeBack(t, s, run, "fair"); // replaces the first's values
  assert.notEqual(first, second);
  const undo = (id: string) => `/console/tasks/spots/writebacks/${id}/undo`;

  // the older one first: 409, on its confirmation page, nothing undone
  let res = await postForm(t, s, undo(first), {});
  assert.equal(res.status, 409);
  let html = await res.text();
  assert.match(html, /role="alert"/);
  assert.match(
    text(html),
    new RegExp(
      `Write-back '${second}' wrote field 'fair' after '${first}': undo it first \\(newest first\\)\\.`,
    ),
  );
  assert.match(html, /Undo write-back<\/button>/);
  assert.equal((await fairByName(t)).a2, 1);

  // newest first, then the older: the field is gone
  assert.equal((await postForm(t, s, undo(second), {})).status, 303);
  assert.equal((await fairByName(t)).a2, 1, "the first write-back's value is back");
  assert.equal((await postForm(t, s, undo(first), {})).status, 303);
  assert.ok(Object.values(await fairByName(t)).every((v) => v === "absent"));

  // an unknown write-back: 404, said on the task's page
  for (
    const req of [getPage(t, s, undo("no-such-writeback")), postForm(t, s, undo("no-such-writeback"), {})]
  ) {
    res = await req;
    assert.equal(res.status, 404);
    html = await res.text();
    assert.match(html, /<h2 id="history">History<\/h2>/);
    assert.match(text(html), /write-back 'no-such-writeback'/i);
  }
});

storeTest("console undo: more than 50 decisions page to the older ones", async (t) => {
  const { s } = await setUp(t);
  for (let i = 0; i < 51; i++) {
    await setTaskStatus(t, "spots", i % 2 ? "pending" : "in-review", { sub: "cli:bob", username: "bob" });
  }
  const html = await (await getPage(t, s, "/console/tasks/spots")).text();
  assert.equal(historyRows(html).length, 50);
  const next = /href="\/console\/tasks\/spots\?before=([0-9a-f]{24})#history">Older decisions/.exec(html);
  assert.ok(next, "a link to the older decisions");
  const older = await (await getPage(t, s, `/console/tasks/spots?before=${next[1]}`)).text();
  const rows = historyRows(older);
  assert.deepEqual(rows.map((r) => [r[1], r[2], r[5]]), [
    ["bob", "Task status", "status: in-review | previous status: pending"],
  ]);
  assert.match(older, /Back to the newest/);
});
