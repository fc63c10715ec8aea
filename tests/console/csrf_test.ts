/**
 * Cross-site requests in a real browser: a page of another origin (another loopback port: the same
 * site, so the SameSite=Strict cookie does go along) posts to the console; the Origin check and the
 * CSRF token refuse it with a 403 and nothing changes. And the console's cookie opens no JSON route.
 */
import assert from "node:assert/strict";
import { browserTest, type Harness } from "../support/browser.ts";
import { createTaskDocument, getTaskDocument } from "../../services/tasks/task_documents.ts";

/** Serves one HTML page on another loopback port: the attacker's site. */
function serveEvil(html: () => string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(html(), { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

const autoPost = (action: string, fields: Record<string, string>) =>
  `<!doctype html>
<html lang="en"><head><title>Win a prize</title></head><body>
<form id="f" method="post" action="${action}">
${Object.entries(fields).map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`).join("\n")}
<button>Claim</button></form></body></html>`;

async function csrfToken(h: Harness, page: import("playwright-core").Page) {
  await page.goto(`${h.app.url}/console/tasks`);
  return await page.locator('input[name="_csrf"]').first().inputValue();
}

browserTest("console: cross-site forms are refused, and the cookie opens no JSON route", async (h, t) => {
  await createTaskDocument(h.app, {
    database_name: "demo",
    data_collection_name: "loans",
    status: "pending",
  });
  const page = await h.newPage();
  await h.signIn(page);
  const token = await csrfToken(h, page);
  let fields: Record<string, string> = {};
  const evil = serveEvil(() => autoPost(`${h.app.url}/console/tasks/loans/done`, fields));
  try {
    for (
      const [what, given] of [
        ["without a CSRF token", {}],
        ["with a wrong CSRF token", { _csrf: "x".repeat(43) }],
        ["with the right token but from another origin", { _csrf: token }],
      ] as const
    ) {
      await t.step(`a form posted from another site ${what}: 403, nothing done`, async () => {
        fields = given;
        await page.goto(evil.url);
        const [res] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith("/console/tasks/loans/done")),
          page.getByRole("button", { name: "Claim" }).click(),
        ]);
        assert.equal(res.status(), 403);
        assert.equal(res.request().headers()["origin"], new URL(evil.url).origin);
        assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Not accepted");
        assert.equal((await getTaskDocument(h.app, "loans")).status, "pending");
      });
    }
  } finally {
    await evil.close();
  }

  await t.step(
    "from the console's own origin, a missing or wrong token is refused all the same",
    async () => {
      await page.goto(`${h.app.url}/console/tasks`);
      const post = (body: Record<string, string>) =>
        page.evaluate(async (body) => {
          const res = await fetch("/console/tasks/loans/done", {
            method: "POST",
            body: new URLSearchParams(body),
            redirect: "manual",
          });
          return res.status;
        }, body);
      assert.equal(await post({}), 403);
      assert.equal(await post({ _csrf: token.slice(1) + "A" }), 403);
      assert.equal((await getTaskDocument(h.app, "loans")).status, "pending");
    },
  );

  await t.step("the same form from the console's own page is accepted", async () => {
    await page.goto(`${h.app.url}/console/tasks`);
    await page.getByRole("row").filter({ hasText: "loans" }).getByRole("button", { name: "Mark done" })
      .click();
    await page.waitForURL(/marked=loans/);
    assert.equal((await getTaskDocument(h.app, "loans")).status, "done");
  });

  await t.step("a signed-in browser's cookie authorises no /api route (bearer only)", async () => {
    // the browser's own request context sends the cookie wherever its path allows; by hand to be sure
    const [cookie] = await page.context().cookies();
    const headers = { cookie: `${cookie.name}=${cookie.value}` };
    for (
      const path of [
        "/api/tasks/documents",
        "/api/tasks/document/loans",
        "/api/spatial-hitl/task/loans/dataset-columns",
      ]
    ) {
      const res = await fetch(`${h.app.url}${path}`, { headers });
      assert.equal(res.status, 401, path);
      assert.deepEqual(await res.json(), { detail: "Not authenticated" });
    }
    const post = await fetch(`${h.app.url}/api/tasks/documents`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", origin: h.app.url },
      body: JSON.stringify({ database_name: "demo", data_collection_name: "sneaky" }),
    });
    assert.equal(post.status, 401);
    await post.body?.cancel();
    await assert.rejects(getTaskDocument(h.app, "sneaky"), /no task document/);
    // and from the page itself (same origin, credentials included): still 401
    const status = await page.evaluate(async () =>
      (await fetch("/api/tasks/documents", { credentials: "include" })).status
    );
    assert.equal(status, 401);
  });

  assert.deepEqual(h.foreignRequests(), []);
  assert.deepEqual(h.problems, []);
});
