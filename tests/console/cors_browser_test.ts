/**
 * CORS in a real browser: Tessera on one loopback port with CORS_ORIGINS naming a second; a page served
 * from that second origin fetches an API route with a bearer token and shows the answer, which the browser
 * lets it read. The same page from a third, unlisted origin gets a TypeError: the browser keeps the answer
 * from it.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { launchBrowser, serveApp, userToken } from "../support/browser.ts";

/** The page a foreign origin serves: fetches `api` with the token in its hash, writes what it got. */
const CLIENT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A dashboard on another origin</title></head>
<body><main><pre id="out">waiting</pre></main>
<script>
const out = document.getElementById("out");
const [api, token] = decodeURIComponent(location.hash.slice(1)).split(" ");
fetch(api, { headers: { Authorization: "Bearer " + token } })
  .then(async (r) => {
    out.textContent = JSON.stringify({ status: r.status, requestId: r.headers.get("X-Request-Id"), body: await r.json() });
  })
  .catch((e) => { out.textContent = "failed: " + e.name; });
</script></body></html>`;

/** A server on 127.0.0.1 (a port of its own, so an origin of its own) that serves the page. */
function servePage(): { origin: string; close(): Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(CLIENT_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
  return { origin: `http://127.0.0.1:${server.addr.port}`, close: () => server.shutdown() };
}

/** What the page showed once its fetch settled, and what the browser logged meanwhile. */
async function fetchFrom(
  browser: Browser,
  origin: string,
  api: string,
  token: string,
): Promise<{ shown: string; logged: string[] }> {
  const page = await (await browser.newContext()).newPage();
  const logged: string[] = [];
  page.on("console", (m) => void logged.push(m.text()));
  await page.goto(`${origin}/#${encodeURIComponent(`${api} ${token}`)}`);
  const out = page.locator("#out");
  await out.filter({ hasNotText: "waiting" }).waitFor({ timeout: 15_000 });
  return { shown: await out.innerText(), logged };
}

Deno.test({
  name: "CORS in Chromium: a listed origin's page reads the API with a bearer token; another cannot",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const listed = servePage();
    const unlisted = servePage();
    const app = await serveApp({ CORS_ORIGINS: listed.origin });
    let browser: Browser | null = null;
    try {
      const token = await userToken(app);
      const api = `${app.url}/dataset`;
      browser = await launchBrowser();

      const seen = JSON.parse((await fetchFrom(browser, listed.origin, api, token)).shown);
      assert.equal(seen.status, 200, JSON.stringify(seen));
      assert.ok(Array.isArray(seen.body), JSON.stringify(seen.body));
      assert.match(seen.requestId ?? "", /^[0-9a-f-]{36}$/, "an exposed header is readable");

      const refused = await fetchFrom(browser, unlisted.origin, api, token);
      assert.equal(refused.shown, "failed: TypeError");
      assert.ok(refused.logged.some((l) => /CORS policy/.test(l)), refused.logged.join("\n"));
    } finally {
      await browser?.close();
      await app.close();
      await listed.close();
      await unlisted.close();
    }
  },
});
