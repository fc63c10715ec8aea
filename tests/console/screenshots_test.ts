/**
 * The screenshots of docs/screenshots/ (shown in the README and docs/console.md), taken over the demo
 * data: `UPDATE_SCREENSHOTS=1 deno task test tests/console/screenshots_test.ts`. Ignored otherwise.
 */
import { browserTest } from "../support/browser.ts";
import { seedDemo } from "../../services/demo/seed.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";

const OUT = new URL("../../docs/screenshots/", import.meta.url);

browserTest("console: screenshots of the main pages", async (h) => {
  await seedDemo(h.app.store, h.app.config.TESSERA_DB);
  await createTaskDocument(h.app, {
    database_name: "demo",
    data_collection_name: "customer_churn",
    status: "done",
    component: "valuation",
    pipeline_name: "churn-weekly",
    started_at: "2026-03-02T08:15:00Z",
    ended_at: "2026-03-02T09:40:00Z",
  });
  await createTaskDocument(h.app, {
    database_name: "demo",
    data_collection_name: "sensor_readings",
    status: "in-review",
    component: "cleaning",
    pipeline_name: "plant-sensors",
    started_at: "2026-03-03T06:00:00Z",
  });
  await Deno.mkdir(OUT, { recursive: true });
  const shoot = async (path: string, file: string, viewport = { width: 1280, height: 800 }) => {
    const page = await h.newPage(viewport);
    if (path !== "/console/sign-in") await h.signIn(page);
    await page.goto(`${h.app.url}${path}`);
    await page.screenshot({ path: new URL(file, OUT).pathname, fullPage: true });
  };
  await shoot("/console/sign-in", "sign-in.png");
  await shoot("/console/tasks", "tasks.png");
  await shoot("/console/datasets", "datasets.png");
  await shoot("/console/datasets/customer_churn", "dataset.png");
  await shoot("/console/tasks", "tasks-phone.png", { width: 390, height: 844 });
}, { ignore: !Deno.env.get("UPDATE_SCREENSHOTS") });
