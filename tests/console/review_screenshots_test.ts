/**
 * The screenshots of the spatial review in docs/screenshots/ (docs/console.md shows them), taken over the
 * demo data with the default settings: `UPDATE_SCREENSHOTS=1 deno task test
 * tests/console/review_screenshots_test.ts`. Ignored otherwise.
 */
import { browserTest } from "../support/browser.ts";
import { seedDemo } from "../../services/demo/seed.ts";

const OUT = new URL("../../docs/screenshots/", import.meta.url);

browserTest("console: screenshots of the spatial review", async (h) => {
  await seedDemo(h.app.store, h.app.config.TESSERA_DB);
  await Deno.mkdir(OUT, { recursive: true });
  const page = await h.newPage({ width: 1280, height: 800 });
  await h.signIn(page);
  await page.goto(`${h.app.url}/console/tasks/loan_approvals`);
  const run = async (button: string) => {
    const before = page.url();
    await page.getByRole("button", { name: button, exact: true }).click();
    await page.waitForURL((u) => /\/runs\//.test(u.pathname) && u.href !== before, { timeout: 300_000 });
    await page.waitForLoadState("networkidle");
  };
  await run("Run audit");
  await page.screenshot({ path: new URL("review-audit.png", OUT).pathname, fullPage: true });
  await run("Relabel");
  await page.screenshot({ path: new URL("review.png", OUT).pathname, fullPage: true });
  const phone = await h.newPage({ width: 390, height: 844 });
  await h.signIn(phone);
  await phone.goto(page.url().replace(/#.*$/, "#result"));
  await phone.waitForLoadState("networkidle");
  await phone.screenshot({ path: new URL("review-phone.png", OUT).pathname });
}, { ignore: !Deno.env.get("UPDATE_SCREENSHOTS") });
