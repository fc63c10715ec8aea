/**
 * Every console page, in a real browser: axe-core finds no serious or critical violation, the page fits
 * a phone (390×844) and a laptop (1280×800) without horizontal scrolling, it has a title and a language,
 * the keyboard reaches the skip link first with a visible focus, and nothing loads from outside.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, type Harness } from "../support/browser.ts";
import { createTaskDocument } from "../../services/tasks/task_documents.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { tabularDemo } from "../../core/demo/datasets.ts";
import { decisionsRef, newEntry } from "../../services/decisions/entry.ts";

/** The few browser globals the checks read (the test itself is type-checked without the DOM library). */
interface El {
  textContent: string | null;
  closest(selector: string): El | null;
}
interface Win {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    activeElement: El | null;
    open(): void;
    write(html: string): void;
    close(): void;
  };
  getComputedStyle(el: El): { outlineStyle: string; outlineWidth: string };
}

async function* rows<T>(it: Iterable<T>) {
  yield* it;
}

/** The write-back the seed logs on the task loan_approvals. */
const WRITEBACK_ID = "89abcdef0123456789abcdef";

/** Data that makes the pages full: tasks in several states, a wide dataset with long values. */
async function seed(h: Harness) {
  const deps = h.app;
  await createTaskDocument(deps, {
    database_name: "demo",
    data_collection_name: "loan_approvals",
    status: "pending",
    component: "spatial-fairness",
    pipeline_name: "credit-scoring-demo",
  });
  await createTaskDocument(deps, {
    database_name: "demo",
    data_collection_name: "a_rather_long_collection_name_for_a_task_that_wraps.v2",
    status: "in-review",
    component: "cleaning",
    metadata: { owner: "data-team", notes: "x".repeat(300) },
  });
  await createTaskDocument(deps, { database_name: "demo", data_collection_name: "churn", status: "done" });
  // a write-back in the task's history (only its log entry: what the history and the undo's confirmation read)
  const writeback = newEntry("writeback", { sub: "alice", username: "alice" }, {
    task: "loan_approvals",
    dataset: "loan_approvals",
    database: "demo",
    run_id: "0123456789abcdef01234567",
    writeback_id: WRITEBACK_ID,
    field: "fair_pred",
    counts: { matched: 50_000, modified: 50_000, not_found: 0 },
    facts: { run_kind: "relabel", request: { budget_constr: 0.2, pr_constr: 0.1 } },
  });
  await deps.store.insertMany(decisionsRef(deps.config.TESSERA_DB), [{ ...writeback }]);
  await importRecords(
    deps.store,
    deps.config.TESSERA_DB,
    { db: "demo", collection: "customer_churn" },
    rows(tabularDemo(60)),
  );
  await importRecords(
    deps.store,
    deps.config.TESSERA_DB,
    { db: "demo", collection: "wide" },
    rows([{
      id: 1,
      description: "a very long text value that would stretch a table well past the width of a phone screen "
        .repeat(3),
      ...Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`feature_${i}`, i * 1.5])),
    }]),
  );
}

/** The checks every page must pass, at the viewport the page has. */
async function checkPage(h: Harness, page: Page, what: string) {
  assert.equal(await page.getAttribute("html", "lang"), "en", what);
  assert.match(await page.title(), / · Tessera$/, what);
  const [scroll, width] = await page.evaluate(() => {
    const w = globalThis as unknown as Win;
    return [w.document.documentElement.scrollWidth, w.innerWidth];
  });
  assert.ok(scroll <= width, `${what}: the page scrolls sideways (${scroll} > ${width})`);
  await h.axe(page, what);
}

/** Console paths with a session, and what each is. */
const PAGES: [string, string][] = [
  ["/console/tasks", "tasks"],
  ["/console/tasks?status=done", "tasks, filtered"],
  ["/console/tasks/loan_approvals", "a task"],
  [`/console/tasks/loan_approvals/writebacks/${WRITEBACK_ID}/undo`, "a write-back's undo confirmation"],
  ["/console/tasks/a_rather_long_collection_name_for_a_task_that_wraps.v2", "a task with long fields"],
  ["/console/datasets", "datasets"],
  ["/console/datasets/customer_churn", "a dataset"],
  ["/console/datasets/wide", "a wide dataset"],
  ["/console/cleaning", "cleaning"],
  ["/console/valuation", "valuation"],
  ["/console/no-such-page", "not found"],
];

browserTest(
  "console: every page is accessible, fits a phone and a laptop, loads nothing from outside",
  async (h, t) => {
    await seed(h);
    for (const viewport of [{ width: 1280, height: 800 }, { width: 390, height: 844 }]) {
      const size = `${viewport.width}×${viewport.height}`;
      const page = await h.newPage(viewport);

      await t.step(`${size}: sign-in, and sign-in with an error`, async () => {
        await page.goto(`${h.app.url}/console/sign-in`);
        await checkPage(h, page, `sign-in at ${size}`);
        await page.getByLabel("Username").fill("alice");
        await page.getByLabel("Password").fill("wrong");
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").waitFor();
        await checkPage(h, page, `sign-in with an error at ${size}`);
      });

      await h.signIn(page);
      for (const [path, what] of PAGES) {
        await t.step(`${size}: ${what}`, async () => {
          const res = await page.goto(`${h.app.url}${path}`);
          assert.equal(res?.status(), what === "not found" ? 404 : 200, what);
          await checkPage(h, page, `${what} at ${size}`);
          if (what !== "not found") {
            assert.equal(await page.getByRole("navigation", { name: "Main" }).getByRole("link").count(), 4);
          }
        });
      }

      await t.step(`${size}: a refused form (403) and a create form with errors`, async () => {
        const status = await page.evaluate(async () => {
          const res = await fetch("/console/tasks", { method: "POST", body: new URLSearchParams({}) });
          const { document } = globalThis as unknown as Win;
          document.open();
          document.write(await res.text());
          document.close();
          return res.status;
        });
        assert.equal(status, 403);
        await h.axe(page, `the 403 page at ${size}`);
        await page.goto(`${h.app.url}/console/tasks`);
        await page.getByLabel("Database").fill("no spaces allowed");
        await page.getByLabel("Data collection name").fill("fine");
        await page.getByRole("button", { name: "Create task" }).click();
        await page.waitForLoadState();
        assert.equal(await page.getByLabel("Database").getAttribute("aria-invalid"), "true");
        await checkPage(h, page, `tasks with form errors at ${size}`);
      });

      await t.step(`${size}: the keyboard reaches the skip link first, with a visible focus`, async () => {
        await page.goto(`${h.app.url}/console/tasks`);
        await page.keyboard.press("Tab");
        const focused = await page.evaluate(() => {
          const w = globalThis as unknown as Win;
          const el = w.document.activeElement!;
          const style = w.getComputedStyle(el);
          return { text: el.textContent, outline: style.outlineStyle, width: style.outlineWidth };
        });
        assert.equal(focused.text, "Skip to content");
        assert.equal(focused.outline, "solid");
        assert.equal(focused.width, "3px");
        await page.keyboard.press("Enter");
        await page.keyboard.press("Tab"); // from the main region, on into the page's first control
        const next = await page.evaluate(() =>
          (globalThis as unknown as Win).document.activeElement?.closest("main") != null
        );
        assert.ok(next, "after the skip link the focus moves into the main region");
      });
    }
    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
);
