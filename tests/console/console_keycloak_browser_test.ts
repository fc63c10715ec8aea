/**
 * Console sign-in at a real Keycloak in the real headless Chromium (AUTH_MODE=oidc): the sign-in link,
 * Keycloak's own login page, back in the console as that user; a page after the access token ran out
 * (the session renewed by the refresh grant); sign-out that ends Keycloak's session too.
 */
import assert from "node:assert/strict";
import { browserTest } from "../support/browser.ts";
import { admin, allowConsoleAt, CLIENT_ID, clientUuid, noKeycloak, oidcEnv } from "../support/keycloak.ts";

/** Access tokens of the console's client this short (s), so the test sees one run out. */
const LIFESPAN_S = 10;

/** Sets (or, with null, removes) the console client's own access token lifespan. */
async function setLifespan(seconds: number | null) {
  const id = await clientUuid(CLIENT_ID);
  const client = await admin("GET", `/clients/${id}`) as { attributes: Record<string, string> };
  if (seconds === null) delete client.attributes["access.token.lifespan"];
  else client.attributes["access.token.lifespan"] = String(seconds);
  await admin("PUT", `/clients/${id}`, client);
}

browserTest(
  "console oidc: sign in on Keycloak's page, stay signed in past the token's life, sign out there too",
  async (h, t) => {
    await allowConsoleAt(h.app.url);
    await setLifespan(LIFESPAN_S);
    const sessions = { db: h.app.config.TESSERA_DB, collection: "_console_sessions" };
    try {
      const page = await h.newPage();

      await t.step(
        "the sign-in page leads to Keycloak's own login page; no password field here",
        async () => {
          await page.goto(`${h.app.url}/console/`);
          assert.match(page.url(), /\/console\/sign-in$/);
          assert.equal(await page.locator('input[type="password"]').count(), 0);
          await h.axe(page, "the oidc sign-in page");
          await page.getByRole("link", { name: "Sign in with Keycloak" }).click();
          await page.locator("#kc-login").waitFor();
          assert.ok(page.url().startsWith(`${oidcEnv().OIDC_ISSUER}/protocol/openid-connect/auth?`));
        },
      );

      await t.step("signed in at Keycloak, back in the console as that user", async () => {
        await page.locator("#username").fill("reviewer");
        await page.locator("#password").fill("reviewer");
        await page.locator("#kc-login").click();
        await page.waitForURL(`${h.app.url}/console/tasks`);
        assert.equal(await page.getByTitle("Signed in as").textContent(), "reviewer");
        assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Tasks");
      });

      await t.step(
        "after the access token ran out, a page still opens: the session was refreshed",
        async () => {
          const [before] = await h.app.store.list(sessions);
          const wait = Number(before.expires_at) - Date.now();
          assert.ok(wait <= LIFESPAN_S * 1000, `the short lifespan holds (${wait} ms)`);
          await new Promise((r) => setTimeout(r, Math.max(0, wait) + 500));
          await page.getByRole("link", { name: "Datasets" }).click();
          await page.waitForURL(`${h.app.url}/console/datasets`);
          assert.equal(await page.getByRole("heading", { level: 1 }).textContent(), "Datasets");
          const [after] = await h.app.store.list(sessions);
          assert.equal(after._id, before._id);
          assert.ok(Number(after.expires_at) > Number(before.expires_at), "renewed by the refresh grant");
          assert.notEqual(after.refresh_token, before.refresh_token);
        },
      );

      await t.step("sign-out ends Keycloak's session too, and comes back to the sign-in page", async () => {
        await page.getByRole("button", { name: "Sign out" }).click();
        await page.waitForURL(/\/console\/sign-in\?state=signed_out$/);
        await page.getByText("You have signed out.").waitFor();
        assert.equal((await h.app.store.list(sessions)).length, 0);
        // no silent sign-in: Keycloak asks for the password again
        await page.goto(`${h.app.url}/console/auth/start`);
        await page.locator("#kc-login").waitFor();
        assert.ok(page.url().startsWith(oidcEnv().OIDC_ISSUER));
      });
    } finally {
      await setLifespan(null);
    }
  },
  { env: oidcEnv({ OIDC_PROVIDER_NAME: "Keycloak" }), ignore: noKeycloak },
);
