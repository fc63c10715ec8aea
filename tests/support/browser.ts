/**
 * The console in a real browser, with no system packages: Tessera served on a random loopback port
 * over a temp KV store with one user (alice:wonderland), and the headless Chromium that
 * `npm:@sparticuz/chromium` unpacks (to /tmp/chromium, once) driven by `npm:playwright-core`.
 *
 * `browserTest(name, fn)` launches the browser once per test and gives `fn` a `Harness`: fresh pages
 * (each in its own context: its own cookies), `signIn`, an axe-core check that fails on any serious or
 * critical violation, and the record of every request the pages made (`foreignRequests()` must stay
 * empty: nothing loads from outside loopback), of CSP violations and of script errors.
 */
import sparticuz from "@sparticuz/chromium";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import axe from "axe-core";
import { createApp } from "../../app.ts";
import { type Config, loadConfig } from "../../config.ts";
import { KvStore } from "../../store/kv.ts";
import { setupAuth } from "../../routes/auth/auth.index.ts";
import { servicePool } from "./pools.ts";
import { prunesSettled } from "../../services/spatial/run_pruning.ts";

export const USER = { username: "alice", password: "wonderland" };

/** Tessera served on 127.0.0.1 at a port the system picked. */
export interface ServedApp {
  /** `http://127.0.0.1:<port>`, also the app's PUBLIC_URL. */
  url: string;
  store: KvStore;
  config: Config;
  close(): Promise<void>;
}

/** An access token of alice from a served app's local realm (password grant of the default client). */
export async function userToken(app: ServedApp): Promise<string> {
  const res = await fetch(`${app.url}/realms/tessera/protocol/openid-connect/token`, {
    method: "POST",
    body: new URLSearchParams({
      grant_type: "password",
      client_id: "tessera",
      client_secret: "tessera-secret",
      ...USER,
    }),
  });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  return (await res.json()).access_token as string;
}

/** Serves the whole app (AUTH_MODE=local, user alice) over a fresh store; env overrides the configuration. */
export async function serveApp(env: Record<string, string> = {}): Promise<ServedApp> {
  const dir = await Deno.makeTempDir({ prefix: "tessera-browser-" });
  const store = await KvStore.open(`${dir}/t.kv`);
  let handler: (req: Request) => Response | Promise<Response> = () =>
    new Response("starting", { status: 503 });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => handler(req));
  const url = `http://127.0.0.1:${server.addr.port}`;
  const config = loadConfig({
    LOG_LEVEL: "silent",
    AUTH_MODE: "local",
    TESSERA_USERS: `${USER.username}:${USER.password}`,
    PUBLIC_URL: url,
    ...env,
  });
  const pool = servicePool(1);
  const { verifier, routes, realm } = await setupAuth(config, store);
  const app = createApp({ config, store, pool, verifier, realm, extraRoutes: routes });
  handler = app.fetch;
  return {
    url,
    store,
    config,
    async close() {
      await server.shutdown();
      await prunesSettled(); // the runs' pruning, left running after an answer
      pool.close();
      await store.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

let executable: Promise<string> | null = null;

/** Launches the headless Chromium (unpacked once per process) as a browser with web security on. */
export async function launchBrowser(): Promise<Browser> {
  executable ??= sparticuz.executablePath();
  // the package's defaults turn same-origin rules off; a console test wants a browser as people have it
  const off = new Set(["--disable-web-security", "--allow-running-insecure-content"]);
  return await chromium.launch({
    executablePath: await executable,
    args: sparticuz.args.filter((a) => !off.has(a)),
    headless: true,
  });
}

/** An axe-core violation as the check reports it. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

export interface Harness {
  app: ServedApp;
  browser: Browser;
  /** Every URL a page of this harness requested. */
  requests: string[];
  /** Content-Security-Policy violations and uncaught script errors seen on any page. */
  problems: string[];
  /**
   * A new page in a new context (no cookies), at 1280×800 unless told otherwise. Leave the context open:
   * the packaged Chromium runs as one process (--single-process), and closing a context can end it.
   */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /** Signs in through the form (as alice unless told otherwise) and waits for the tasks page. */
  signIn(page: Page, who?: { username: string; password: string }): Promise<void>;
  /** Runs axe-core on the page; throws naming every serious or critical violation. */
  axe(page: Page, what?: string): Promise<AxeViolation[]>;
  /** The requests that left loopback: to any host but the served app's (data:, about:, blob: stay local). */
  foreignRequests(): string[];
}

/** Attaches the request, CSP and error recorders to a context. */
function record(context: BrowserContext, requests: string[], problems: string[]): void {
  context.on("request", (r) => void requests.push(r.url()));
  context.on("page", (p) => watch(p, problems));
}

function watch(page: Page, problems: string[]): void {
  page.on("console", (m) => {
    if (/content security policy/i.test(m.text())) problems.push(`CSP: ${m.text()}`);
  });
  page.on("pageerror", (e) => void problems.push(`script error: ${e.message}`));
}

async function runAxe(page: Page, what: string): Promise<AxeViolation[]> {
  // evaluated through the DevTools protocol, which the page's CSP (script-src 'self') does not stop
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === "object");
  if (!loaded) await page.evaluate((axe as unknown as { source: string }).source);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run()
  );
  const violations = result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target })),
  }));
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  if (bad.length) {
    const lines = bad.map((v) =>
      `  ${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`
    );
    throw new Error(`axe on ${what} (${page.url()}):\n${lines.join("\n")}`);
  }
  return violations;
}

/**
 * A test with a served app and a browser, both closed at its end whatever happens. The browser's
 * process and sockets outlive single steps, so the resource and op sanitizers are off for it.
 */
export function browserTest(
  name: string,
  fn: (h: Harness, t: Deno.TestContext) => Promise<void>,
  opts: { env?: Record<string, string>; ignore?: boolean } = {},
): void {
  const env = opts.env ?? {};
  Deno.test({
    name,
    ignore: opts.ignore,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      const app = await serveApp(env);
      let browser: Browser | null = null;
      try {
        browser = await launchBrowser();
        const requests: string[] = [];
        const problems: string[] = [];
        const b = browser;
        const h: Harness = {
          app,
          browser: b,
          requests,
          problems,
          async newPage(viewport = { width: 1280, height: 800 }) {
            const context = await b.newContext({ viewport });
            record(context, requests, problems);
            return await context.newPage();
          },
          async signIn(page, who = USER) {
            await page.goto(`${app.url}/console/`);
            await page.getByLabel("Username").fill(who.username);
            await page.getByLabel("Password").fill(who.password);
            await page.getByRole("button", { name: "Sign in" }).click();
            await page.waitForURL(/\/console\/tasks/);
          },
          axe: (page, what = "the page") => runAxe(page, what),
          foreignRequests() {
            const local = new URL(app.url).hostname;
            return requests.filter((u) => !/^(data|about|blob):/.test(u) && new URL(u).hostname !== local);
          },
        };
        await fn(h, t);
      } finally {
        await browser?.close();
        await app.close();
      }
    },
  });
}
