/**
 * Roles in the console, without a browser, on both stores, with the local issuer's users vera (viewer),
 * rui (reviewer) and sam (steward): each sees only the actions their role allows, is told why a page is
 * read-only, and a form sent anyway beyond their role is refused with a page naming the role it needs,
 * changing nothing.
 */
import assert from "node:assert/strict";
import { type StoreApp, storeTest } from "../support/stores.ts";
import { ORIGIN, SPOTS_CSV, SPOTS_SETTINGS } from "../support/console_session.ts";
import { createTaskDocument, getTaskDocument } from "../../services/tasks/task_documents.ts";
import { listDecisions } from "../../services/decisions/list.ts";

const USERS = "vera:v-pass:viewer,rui:r-pass:reviewer,sam:s-pass:steward";
const PASSWORDS: Record<string, string> = { vera: "v-pass", rui: "r-pass", sam: "s-pass" };

interface Who {
  cookie: string;
  csrf: string;
}

/** Signs a user in with the console's form; their cookie and CSRF token (from the sign-out form). */
async function signIn(t: StoreApp, username: string): Promise<Who> {
  const res = await t.app.request("/console/sign-in", {
    method: "POST",
    headers: { origin: ORIGIN },
    body: new URLSearchParams({ username, password: PASSWORDS[username] }),
  });
  assert.equal(res.status, 303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0];
  const page = await (await t.app.request("/console/tasks", { headers: { cookie } })).text();
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(page)![1] };
}

const get = async (t: StoreApp, w: Who, path: string) => {
  const res = await t.app.request(path, { headers: { cookie: w.cookie } });
  return { status: res.status, html: await res.text() };
};

const post = async (t: StoreApp, w: Who, path: string, fields: Record<string, string>) => {
  const res = await t.app.request(path, {
    method: "POST",
    headers: { origin: ORIGIN, cookie: w.cookie },
    body: new URLSearchParams({ _csrf: w.csrf, ...fields }),
  });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
};

/** The spots dataset (imported with sam's token) and its task. */
async function setUp(t: StoreApp): Promise<void> {
  const token = await t.app.request("/realms/tessera/protocol/openid-connect/token", {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "password",
      client_id: "tessera",
      client_secret: "tessera-secret",
      username: "sam",
      password: "s-pass",
    }),
  });
  const { access_token } = await token.json();
  const res = await t.app.request(`/api/datasets/${t.db}/spots`, {
    method: "POST",
    body: SPOTS_CSV,
    headers: { "content-type": "text/csv", authorization: `Bearer ${access_token}` },
  });
  assert.equal(res.status, 200, await res.text());
  await createTaskDocument(t, { database_name: t.db, data_collection_name: "spots", status: "pending" });
}

const REVIEW = { ...SPOTS_SETTINGS, budget_pct: "25", tolerance_pct: "0", approx: "true", work_limit: "30" };

storeTest("console: a viewer reads, is told why, and is refused anything more", async (t) => {
  await setUp(t);
  const vera = await signIn(t, "vera");
  const tasks = await get(t, vera, "/console/tasks");
  assert.equal(tasks.status, 200);
  assert.match(tasks.html, /You are signed in as a <strong>viewer<\/strong>/);
  assert.match(tasks.html, /needs the reviewer role/);
  assert.doesNotMatch(tasks.html, /method="post" action="\/console\/tasks"/, "no create form");
  assert.doesNotMatch(tasks.html, /done"/, "no Mark done");
  assert.doesNotMatch(tasks.html, /href="\/console\/valuation"/, "no Valuation in the navigation");
  const review = await get(t, vera, "/console/tasks/spots");
  assert.equal(review.status, 200);
  assert.doesNotMatch(review.html, /id="review-settings"/);
  assert.match(review.html, /Running an audit or a mitigation needs the reviewer role; you are a viewer\./);

  const refused = await post(t, vera, "/console/tasks/spots/review", { ...REVIEW, action: "audit" });
  assert.equal(refused.status, 403);
  assert.match(refused.html, /This needs the reviewer role; you are a viewer\. Nothing was changed\./);
  const done = await post(t, vera, "/console/tasks/spots/done", {});
  assert.equal(done.status, 403);
  assert.match(done.html, /This needs the steward role; you are a viewer\./);
  assert.equal((await getTaskDocument(t, "spots")).status, "pending");
  assert.equal((await get(t, vera, "/console/valuation")).status, 403);
  assert.equal((await post(t, vera, "/console/datasets/spots/delete", { confirm: "spots" })).status, 403);
  assert.equal((await get(t, vera, "/console/datasets/spots")).status, 200, "the dataset is still there");
}, { auth: true, env: { TESSERA_USERS: USERS } });

storeTest("console: a reviewer runs a mitigation but may not write it back", async (t) => {
  await setUp(t);
  const rui = await signIn(t, "rui");
  const run = await post(t, rui, "/console/tasks/spots/review", { ...REVIEW, action: "relabel" });
  assert.equal(run.status, 303, run.html);
  const runPath = run.location!.replace("#result", "");
  const page = await get(t, rui, runPath);
  assert.equal(page.status, 200);
  assert.match(page.html, /id="review-settings"/);
  assert.match(page.html, /You are signed in as a <strong>reviewer<\/strong>/);
  assert.doesNotMatch(page.html, /action="[^"]*\/writeback"/, "no write-back form");
  const refused = await post(t, rui, `${runPath}/writeback`, { new_field: "fair" });
  assert.equal(refused.status, 403);
  assert.match(refused.html, /This needs the steward role; you are a reviewer\./);
  assert.equal((await get(t, rui, `${runPath}/writeback?new_field=fair`)).status, 403);
  assert.equal(
    (await listDecisions(t, { kind: "writeback", limit: 50 })).decisions.length,
    0,
    "nothing was written back",
  );

  const sam = await signIn(t, "sam");
  const steward = await get(t, sam, runPath);
  assert.doesNotMatch(steward.html, /id="role-notice"/);
  assert.match(steward.html, /action="[^"]*\/writeback"/);
  const wrote = await post(t, sam, `${runPath}/writeback`, { new_field: "fair" });
  assert.equal(wrote.status, 303, wrote.html);
  assert.equal((await listDecisions(t, { kind: "writeback", limit: 50 })).decisions[0].kind, "writeback");
}, { auth: true, env: { TESSERA_USERS: USERS } });
