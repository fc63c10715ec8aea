/**
 * The console's sign-in, in a real browser: sign in → tasks → mark done; a wrong password; sign-out;
 * an expired session sends the person back to sign-in with a message, keeps where they were going and
 * the form they had sent.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, type Harness } from "../support/browser.ts";
import { createTaskDocument, getTaskDocument } from "../../services/tasks/task_documents.ts";

const SESSIONS = (h: Harness) => ({ db: h.app.config.TESSERA_DB, collection: "_console_sessions" });

async function seedTask(h: Harness, name: string, status = "pending") {
  await createTaskDocument(h.app, {
    database_name: "demo",
    data_collection_name: name,
    status,
    component: "spatial-fairness",
    pipeline_name: "credit",
  });
}

/** Ends every stored session as time would: access and refresh tokens both run out. */
async function expireSessions(h: Harness) {
  for (const doc of await h.app.store.list(SESSIONS(h))) {
    await h.app.store.patch(SESSIONS(h), doc._id, { expires_at: 0, refresh_expires_at: 1 });
  }
}

const row = (page: Page, name: string) => page.getByRole("row").filter({ hasText: name });

browserTest("console: sign in, see the tasks, mark one done", async (h, t) => {
  await seedTask(h, "loan_approvals");
  await seedTask(h, "churn", "done");
  const page = await h.newPage();

  await t.step("GET / leads to the sign-in page", async () => {
    const res = await page.goto(`${h.app.url}/`);
    assert.equal(res?.status(), 200);
    assert.match(page.url(), /\/console\/sign-in$/);
    assert.equal(await page.title(), "Sign in · Tessera");
  });

  await t.step("a wrong password shows an error next to the form, and keeps the username", async () => {
    await page.getByLabel("Username").fill("alice");
    await page.getByLabel("Password").fill("not-her-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    const alert = page.getByRole("alert");
    assert.equal((await alert.textContent())?.trim(), "Invalid username or password.");
    // the message is inside the form it concerns, which names it as its description
    assert.equal(
      await page.locator("form").filter({ has: alert }).getAttribute("aria-describedby"),
      "sign-in-error",
    );
    assert.equal(await page.getByLabel("Username").inputValue(), "alice");
    assert.equal(await page.getByLabel("Password").inputValue(), "");
    assert.equal((await page.context().cookies()).length, 0);
  });

  await t.step("the right password leads to the tasks, with the navigation", async () => {
    await page.getByLabel("Password").fill("wonderland");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/console\/tasks$/);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Tasks");
    for (const name of ["Tasks", "Datasets", "Cleaning", "Valuation"]) {
      assert.equal(
        await page.getByRole("navigation").getByRole("link", { name, exact: true }).count(),
        1,
        name,
      );
    }
    assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 1);
    const [cookie] = await page.context().cookies();
    assert.equal(cookie.name, "tessera_session");
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, "Strict");
    assert.equal(cookie.path, "/console");
    assert.equal(cookie.secure, false); // PUBLIC_URL is http here
  });

  await t.step("the table lists both tasks; the filter by status narrows it", async () => {
    assert.equal(await row(page, "loan_approvals").count(), 1);
    assert.equal(await row(page, "churn").count(), 1);
    await page.getByLabel("Show status").selectOption("done");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/status=done/);
    assert.equal(await row(page, "loan_approvals").count(), 0);
    assert.equal(await row(page, "churn").count(), 1);
    await page.getByRole("link", { name: "Clear filter" }).click();
    await page.waitForURL(/\/console\/tasks$/);
  });

  await t.step("Mark done sets the status through the service, and says so", async () => {
    await row(page, "loan_approvals").getByRole("button", { name: "Mark done" }).click();
    await page.waitForURL(/marked=loan_approvals/);
    assert.match(
      await page.getByRole("status").first().textContent() ?? "",
      /'loan_approvals' is marked done/,
    );
    const doc = await getTaskDocument(h.app, "loan_approvals");
    assert.equal(doc.status, "done");
    assert.ok(doc.ended_at, "done sets ended_at");
    assert.equal(await row(page, "loan_approvals").getByRole("button", { name: "Mark done" }).count(), 0);
  });

  await t.step("a task's name leads to its page, with its fields", async () => {
    await page.getByRole("link", { name: "churn", exact: true }).click();
    await page.waitForURL(/\/console\/tasks\/churn$/);
    assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "churn");
    assert.match(await page.locator("dl.facts").textContent() ?? "", /credit/);
  });

  await t.step("create a task: a bad name is refused next to its field, a good one is created", async () => {
    await page.getByRole("link", { name: "Tasks", exact: true }).click();
    await page.getByLabel("Database").fill("demo");
    await page.getByLabel("Data collection name").fill("bad name!");
    await page.getByRole("button", { name: "Create task" }).click();
    const field = page.getByLabel("Data collection name");
    assert.equal(await field.getAttribute("aria-invalid"), "true");
    const described = await field.getAttribute("aria-describedby");
    assert.match(await page.locator(`#${described}`).textContent() ?? "", /letter or digit/);
    await field.fill("sensor_readings");
    await page.getByLabel("Component", { exact: true }).fill("cleaning");
    await page.getByRole("button", { name: "Create task" }).click();
    await page.waitForURL(/created=sensor_readings/);
    assert.equal((await getTaskDocument(h.app, "sensor_readings")).status, "pending");
  });

  await t.step("sign out ends the session: the cookie no longer opens a page", async () => {
    const [cookie] = await page.context().cookies();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/console\/sign-in\?signed_out=1$/);
    assert.match(await page.getByRole("status").textContent() ?? "", /You have signed out/);
    assert.equal((await page.context().cookies()).length, 0);
    assert.equal((await h.app.store.list(SESSIONS(h))).length, 0);
    // the old cookie, sent again by hand, leads to sign-in
    const res = await fetch(`${h.app.url}/console/tasks`, {
      headers: { cookie: `${cookie.name}=${cookie.value}` },
      redirect: "manual",
    });
    await res.body?.cancel();
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/console/sign-in");
  });

  assert.deepEqual(h.foreignRequests(), []);
  assert.deepEqual(h.problems, []);
});

browserTest(
  "console: an expired session goes back to sign-in, keeping the page and the form",
  async (h, t) => {
    const page = await h.newPage();
    await h.signIn(page);

    await t.step("a page opened after expiry: sign-in with a message, then back to that page", async () => {
      await expireSessions(h);
      await page.goto(`${h.app.url}/console/datasets`);
      await page.waitForURL(/\/console\/sign-in\?next=%2Fconsole%2Fdatasets&expired=1$/);
      assert.match(await page.getByRole("status").first().textContent() ?? "", /Your session has expired/);
      assert.equal((await h.app.store.list(SESSIONS(h))).length, 0, "the ended session is deleted");
      await page.getByLabel("Username").fill("alice");
      await page.getByLabel("Password").fill("wonderland");
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/console\/datasets$/);
    });

    await t.step(
      "a form sent after expiry is kept and shown again, filled in, after signing in",
      async () => {
        await page.goto(`${h.app.url}/console/tasks`);
        await page.getByLabel("Database").fill("demo");
        await page.getByLabel("Data collection name").fill("late_task");
        await page.getByLabel("Pipeline name").fill("nightly");
        await expireSessions(h);
        await page.getByRole("button", { name: "Create task" }).click();
        await page.waitForURL(/\/console\/sign-in\?.*expired=1.*pending=/);
        assert.match(await page.getByRole("status").first().textContent() ?? "", /will be shown again/);
        await page.getByLabel("Username").fill("alice");
        await page.getByLabel("Password").fill("wonderland");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.waitForURL(/\/console\/tasks\?pending=/);
        assert.match(await page.getByRole("status").first().textContent() ?? "", /nothing was saved/);
        assert.equal(await page.getByLabel("Data collection name").inputValue(), "late_task");
        assert.equal(await page.getByLabel("Pipeline name").inputValue(), "nightly");
        await assert.rejects(getTaskDocument(h.app, "late_task"), /no task document/);
        await page.getByRole("button", { name: "Create task" }).click();
        await page.waitForURL(/created=late_task/);
        assert.equal((await getTaskDocument(h.app, "late_task")).pipeline_name, "nightly");
      },
    );

    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
);
