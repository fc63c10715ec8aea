/**
 * Cancel in a real browser: an exact relabel the search cannot finish, sent from the review page, is
 * followed by the page's script (its progress asked for) and shows a Cancel button where it was measured;
 * selecting it brings the page back within seconds, saying that the mitigation was cancelled, its
 * settings kept, nothing of its run left, no script or policy error. Needs workers (not run inline).
 */
import assert from "node:assert/strict";
import { browserTest } from "../support/browser.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";
import { unfinishedExactRows } from "../support/long_mitigation.ts";

browserTest(
  "console: a relabel under way is followed and cancelled with its Cancel button",
  async (h) => {
    const { store, config } = h.app;
    await store.insertMany({ db: "demo", collection: "long" }, unfinishedExactRows());
    await createTaskDocument({ store, config }, {
      database_name: "demo",
      data_collection_name: "long",
      status: "pending",
    });
    // tall enough that nothing scrolls: while the form's request is under way Playwright's locators
    // wait for it to end, so the buttons are clicked where they were measured, as a person would
    const page = await h.newPage({ width: 1280, height: 2400 });
    await h.signIn(page);
    await page.goto(`${h.app.url}/console/tasks/long`);
    const cancel = page.getByRole("button", { name: "Cancel", exact: true });
    assert.equal(await cancel.isVisible(), false, "no Cancel button while nothing runs");
    await h.axe(page, "the review page with its hidden Cancel button");
    await page.getByLabel("Fairness notion").selectOption("false");
    await page.getByLabel("Worlds").fill("19");
    await page.getByLabel("Approx (PROMIS-Approx)").uncheck();
    const actions = page.locator(".cancel-run-actions");
    await actions.evaluate((e) => ((e as unknown as { hidden: boolean }).hidden = false));
    const at = await cancel.boundingBox();
    await actions.evaluate((e) => ((e as unknown as { hidden: boolean }).hidden = true));
    const relabel = await page.getByRole("button", { name: "Relabel", exact: true }).boundingBox();
    const centre = (b: typeof at) => [b!.x + b!.width / 2, b!.y + b!.height / 2] as const;

    // the page's script follows the run's progress while the form waits (the browser answers nothing
    // else meanwhile, so the phase is read from the store)
    let followed = 0, cancelStatus = 0;
    page.on("response", (r) => {
      if (r.url().endsWith("/cancel")) cancelStatus = r.status();
      if (r.url().endsWith("/progress") && r.status() === 200) followed++;
    });
    await page.mouse.click(...centre(relabel));
    const runs = { db: config.TESSERA_DB, collection: "spatial_runs" };
    for (const until = Date.now() + 30_000;;) {
      const [run] = await store.list(runs, { state: "running" });
      if (followed > 0 && (run?.progress as { phase?: string })?.phase === "exact search") break;
      assert.ok(Date.now() < until, `not solving, or not followed (${followed}): ${JSON.stringify(run)}`);
      await new Promise((r) => setTimeout(r, 50));
    }

    const t0 = Date.now();
    await page.mouse.click(...centre(at));
    await page.getByText("The mitigation was cancelled before it finished").waitFor({ timeout: 10_000 });
    assert.ok(Date.now() - t0 < 5_000, `the page came back after ${Date.now() - t0} ms`);
    assert.equal(cancelStatus, 303, "the Cancel button posted the cancel");
    assert.equal(await page.getByLabel("Worlds").inputValue(), "19", "the settings are kept");
    assert.deepEqual(await store.list(runs), []);
    assert.deepEqual(h.problems, []);
    assert.deepEqual(h.foreignRequests(), []);
  },
  { ignore: Deno.env.get("WORKERS") === "0" },
);
