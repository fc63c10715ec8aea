/**
 * The cleaning pages in a real browser, over the demo `sensor_readings` (1,440 hourly readings with 21
 * missing hours in each column): start an imputation job from the form, watch its progress bar (it
 * follows the job by itself), read the filled cells against a hand-computed linear interpolation, approve
 * it and see the dataset changed, then undo the approval after its confirmation; a detection job's chart
 * of anomalies, and Reject, which writes nothing.
 * Without JavaScript a running job's page refreshes itself. Axe, a phone's width and loopback-only
 * requests on every page.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, type Harness } from "../support/browser.ts";
import { servicePool } from "../support/pools.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { runnerFromConfig } from "../../services/cleaning/job_runner.ts";
import { listJobs } from "../../services/cleaning/jobs.ts";
import { DEMO_DB, DEMO_SERIES } from "../../services/demo/seed.ts";
import { SERIES_ANOMALIES, SERIES_GAPS, timeSeriesDemo } from "../../core/demo/datasets.ts";

const SHOTS = new URL("../../docs/screenshots/", import.meta.url);
const ENV = { JOB_POLL_SECONDS: "0.2" };

async function* rows<T>(it: Iterable<T>) {
  yield* it;
}

/** The demo series as the demo seed writes it. */
async function seedSeries(h: Harness) {
  await importRecords(
    h.app.store,
    h.app.config.TESSERA_DB,
    { db: DEMO_DB, collection: DEMO_SERIES },
    rows(timeSeriesDemo()),
  );
}

/** A job runner over the served app's store (the served app starts none), until `stop`. */
function startRunner(h: Harness) {
  const pool = servicePool(1);
  const runner = runnerFromConfig(h.app.config, h.app.store, pool);
  runner.start();
  return {
    async stop() {
      await runner.stop();
      await runner.idle();
      pool.close();
    },
  };
}

/** The text of every cell of the table in the region named `name`, row by row (header first). */
async function tableText(page: Page, name: string): Promise<string[][]> {
  const region = page.getByRole("region", { name, exact: true });
  await region.waitFor(); // evaluateAll does not wait: right after a click the old page may still show
  return await region.locator("tr").evaluateAll((trs) =>
    trs.map((r) => [...r.querySelectorAll("th, td")].map((c) => (c.textContent ?? "").trim()))
  );
}

/** The checks of every page: axe, and no sideways scrolling at the page's width. */
async function checkPage(h: Harness, page: Page, what: string) {
  await h.axe(page, what);
  const [scroll, width] = await page.evaluate(() => {
    const w = globalThis as unknown as {
      innerWidth: number;
      document: { documentElement: { scrollWidth: number } };
    };
    return [w.document.documentElement.scrollWidth, w.innerWidth];
  });
  assert.ok(scroll <= width, `${what}: the page scrolls sideways (${scroll} > ${width})`);
}

/** The demo's temperatures by hour, nulls in the gaps. */
function temperatures(): (number | null)[] {
  return [...timeSeriesDemo()].map((r) => r.temperature as number | null);
}

/** "2026-01-05 04:00 UTC" → hours since the demo's start (2026-01-01 00:00 UTC). */
const hourOf = (text: string) =>
  (Date.parse(text.replace(" UTC", "Z").replace(" ", "T")) - Date.UTC(2026, 0, 1)) / 3600_000;

/** How the page writes a number: at most four decimals. */
const shown = (v: number) => String(Number(v.toFixed(4)));

browserTest(
  "console: start an imputation job, watch its progress, approve it, see the data changed",
  async (h, t) => {
    await seedSeries(h);
    const page = await h.newPage();
    await h.signIn(page);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Cleaning" }).click();
    await page.waitForURL(/\/console\/cleaning$/);
    await checkPage(h, page, "the cleaning page");

    await t.step(
      "the start form: dataset and method, then columns and parameters with their defaults",
      async () => {
        await page.getByLabel("Dataset", { exact: true }).selectOption(DEMO_SERIES);
        await page.getByLabel("Method", { exact: true }).selectOption("impute/timeseries/linear");
        await page.getByRole("button", { name: "Choose" }).click();
        await page.waitForURL(/data=sensor_readings/);
        assert.equal(
          await page.getByLabel("Date column").inputValue(),
          "timestamp",
          "the date column is guessed",
        );
        const columns = page.getByRole("group", { name: "Columns" });
        assert.ok(await columns.getByLabel("temperature").isChecked());
        assert.ok(await columns.getByLabel("humidity").isChecked());
        await checkPage(h, page, "the start form");
        // another method shows its parameters with the catalogue's defaults
        await page.getByLabel("Method", { exact: true }).selectOption("impute/timeseries/rolling_mean");
        await page.getByRole("button", { name: "Choose" }).click();
        await page.waitForURL(/rolling_mean/);
        assert.equal(await page.getByLabel("window").inputValue(), "5");
        await page.getByLabel("Method", { exact: true }).selectOption("impute/timeseries/linear");
        await page.getByRole("button", { name: "Choose" }).click();
        await page.waitForURL(/linear/);
        // no column ticked: refused next to the columns, nothing queued
        await columns.getByLabel("temperature").uncheck();
        await columns.getByLabel("humidity").uncheck();
        await page.getByRole("button", { name: "Start job" }).click();
        await page.waitForLoadState();
        assert.match(
          await page.getByRole("group", { name: "Columns" }).textContent() ?? "",
          /Choose at least one column/,
        );
        assert.equal((await listJobs(h.app)).length, 0);
      },
    );

    let jobUrl = "";
    await t.step("Start job: the job's page shows a progress bar while it waits", async () => {
      const columns = page.getByRole("group", { name: "Columns" });
      await columns.getByLabel("temperature").check();
      await columns.getByLabel("humidity").uncheck();
      await page.getByRole("button", { name: "Start job" }).click();
      await page.waitForURL(/\/console\/cleaning\/jobs\/[0-9a-f]+$/);
      jobUrl = page.url();
      const bar = page.getByRole("progressbar", { name: "Progress of linear on sensor_readings" });
      assert.equal(await bar.getAttribute("value"), "0");
      assert.match(await bar.getAttribute("aria-valuetext") ?? "", /^Queued/);
      await checkPage(h, page, "a queued job");
      const jobs = await listJobs(h.app);
      assert.deepEqual(jobs.map((j) => [j.status, j.method, j.columns, j.date_col]), [
        ["queued", "linear", ["temperature"], "timestamp"],
      ]);
    });

    await t.step(
      "the runner starts: the page follows the job by itself and shows the filled cells",
      async () => {
        const polls = h.requests.filter((u) => u.endsWith("/progress")).length;
        const runner = startRunner(h);
        try {
          // no reload by the test: the page's script notices the job has ended
          await page.getByRole("heading", { name: "Filled cells" }).waitFor({ timeout: 20_000 });
        } finally {
          await runner.stop();
        }
        assert.ok(
          h.requests.filter((u) => u.endsWith("/progress")).length > polls,
          "the page polled the progress",
        );
        assert.equal(await page.getByRole("progressbar").count(), 0);
        // the filled cells against linear interpolation between the readings either side of each gap
        const temps = temperatures();
        const [head, ...body] = await tableText(page, "Filled cells");
        assert.deepEqual(head, ["Row", "timestamp", "Column", "Before", "After", "In the dataset now"]);
        const expected = new Map<number, number>();
        for (const [a, b] of SERIES_GAPS) {
          const y0 = temps[a - 1]!, y1 = temps[b]!;
          for (let x = a; x < b; x++) expected.set(x, y0 + (y1 - y0) * (x - (a - 1)) / (b - (a - 1)));
        }
        assert.equal(body.length, expected.size);
        for (const [, time, column, before, after, now] of body) {
          const hour = hourOf(time);
          assert.ok(expected.has(hour), `hour ${hour} was a gap`);
          assert.deepEqual([column, before, after, now], [
            "temperature",
            "missing",
            shown(expected.get(hour)!),
            "missing",
          ]);
        }
        const chart = page.getByRole("img", { name: "temperature over time, with 21 filled readings" });
        assert.ok(await chart.isVisible());
        assert.equal(await chart.locator("rect[width='7']").count(), 21, "one mark per filled reading");
        await checkPage(h, page, "a job's results");
      },
    );

    await t.step("Approve: the values are written back, the page shows them in the dataset", async () => {
      // a field name Tessera would not write: refused next to its field, the choices kept, nothing written
      await page.getByLabel("Write the filled values into").selectOption("new_fields");
      await page.getByLabel("Suffix of new fields").fill("-filled");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForLoadState();
      const suffix = page.getByLabel("Suffix of new fields");
      assert.equal(await suffix.getAttribute("aria-invalid"), "true");
      const said = (await suffix.getAttribute("aria-describedby"))!.split(" ").at(-1);
      assert.match(
        await page.locator(`#${said}`).textContent() ?? "",
        /'temperature-filled' is not a field name/,
      );
      assert.equal(await page.getByLabel("Write the filled values into").inputValue(), "new_fields");
      assert.equal((await listJobs(h.app))[0].approval, null);
      await page.getByLabel("Write the filled values into").selectOption("same_fields");
      await page.getByLabel("Comment").fill("gaps are short; linear is fine");
      await page.getByRole("button", { name: "Approve" }).click();
      await page.waitForURL(/approved=1/);
      assert.match(await page.getByRole("status").first().textContent() ?? "", /Approved/);
      const body = (await tableText(page, "Filled cells")).slice(1);
      for (const [, , , , after, now] of body) assert.equal(now, after);
      assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: "Reject" }).count(), 0);
      await checkPage(h, page, "an approved job");
      // the dataset itself: every temperature present now, humidity (not chosen) still with its gaps
      const docs = await h.app.store.list({ db: DEMO_DB, collection: DEMO_SERIES });
      assert.equal(docs.length, 1440);
      assert.equal(docs.filter((d) => d.temperature === null || d.temperature === undefined).length, 0);
      assert.equal(docs.filter((d) => d.humidity === null || d.humidity === undefined).length, 21);
      const job = (await listJobs(h.app))[0];
      assert.equal(job.approval?.approved_by_username, "alice");
      assert.equal(job.approval?.approval_info.comment, "gaps are short; linear is fine");
      assert.equal(job.approval?.write_back.cells_written, 21);
    });

    await t.step("the list shows the job as done and approved, at 1280 and 390 wide", async () => {
      await page.getByRole("link", { name: "All cleaning jobs" }).click();
      await page.waitForURL(/\/console\/cleaning$/);
      const done = await tableText(page, "Done jobs");
      assert.deepEqual(done.slice(1).map((r) => [r[0], r[1], r[2], r[4], r[5]]), [
        ["linear on sensor_readings", "Impute · time series", "temperature", "succeeded", "approved"],
      ]);
      const phone = await h.newPage({ width: 390, height: 844 });
      await h.signIn(phone);
      for (
        const path of [
          "/console/cleaning",
          "/console/cleaning?data=sensor_readings&using=impute/tabular/knn",
          jobUrl,
        ]
      ) {
        await phone.goto(path.startsWith("http") ? path : `${h.app.url}${path}`);
        await checkPage(h, phone, `${path} on a phone`);
      }
    });

    await t.step(
      "Undo approval: a confirmation with the counts, then the gaps again, approvable",
      async () => {
        await page.goto(jobUrl);
        await page.getByRole("button", { name: "Undo approval…", exact: true }).click();
        await page.waitForURL(/confirm=undo/);
        // the write-back wrote the 21 gaps of temperature, one per hourly document
        const confirm = page.getByRole("form", { name: "Undo this approval?" });
        const said = (await confirm.textContent() ?? "").replace(/\s+/g, " ");
        assert.match(said, /21 ?cells to restore/);
        assert.match(said, /21 ?documents affected/);
        await checkPage(h, page, "the undo confirmation");
        assert.equal(
          (await listJobs(h.app))[0].approval?.undo,
          undefined,
          "nothing runs before the confirmation",
        );
        await confirm.getByRole("button", { name: "Undo approval", exact: true }).click();
        await page.waitForURL(/undone=1/);
        assert.match(
          await page.getByRole("status").first().textContent() ?? "",
          /Approval undone: 21 cells restored, 0 documents changed since/,
        );
        const docs = await h.app.store.list({ db: DEMO_DB, collection: DEMO_SERIES });
        assert.equal(docs.filter((d) => d.temperature === null).length, 21, "the gaps are null again");
        assert.equal(docs.filter((d) => d.temperature === undefined).length, 0);
        assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 1, "approvable again");
        assert.match(
          await page.getByRole("region", { name: "Approvals undone" }).textContent() ?? "",
          /alice/,
        );
        await checkPage(h, page, "a job whose approval was undone");
        const job = (await listJobs(h.app))[0];
        assert.deepEqual([job.approval, job.undone_approvals?.[0].undo?.undone_by_username], [null, "alice"]);
      },
    );

    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
  { env: ENV },
);

browserTest(
  "console: a detection job's anomalies on its chart, Reject writes nothing; without JavaScript the page refreshes",
  async (h, t) => {
    await seedSeries(h);

    await t.step("without JavaScript a waiting job's page refreshes itself", async () => {
      const context = await h.browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 800 },
      });
      context.on("request", (r) => void h.requests.push(r.url()));
      const page = await context.newPage();
      await h.signIn(page);
      await page.goto(`${h.app.url}/console/cleaning?data=sensor_readings&using=detect/timeseries/seasonal`);
      await page.getByRole("group", { name: "Columns" }).getByLabel("humidity").uncheck();
      await page.getByLabel("freq").fill("24");
      await page.getByRole("button", { name: "Start job" }).click();
      await page.waitForURL(/\/jobs\//);
      assert.ok(await page.getByRole("progressbar").isVisible());
      const url = page.url();
      const loads = h.requests.filter((u) => u === url).length;
      await page.waitForTimeout(3500);
      assert.ok(h.requests.filter((u) => u === url).length > loads, "the page reloaded itself");
    });

    const page = await h.newPage();
    await h.signIn(page);
    await page.goto(`${h.app.url}/console/cleaning`);
    const runner = startRunner(h);
    try {
      await page.getByRole("link", { name: "seasonal on sensor_readings" }).click();
      await page.getByRole("heading", { name: "Rows by anomaly score" }).waitFor({ timeout: 20_000 });
    } finally {
      await runner.stop();
    }

    await t.step("the chart marks the anomalies: the demo's four spikes", async () => {
      const chart = page.getByRole("img", { name: "temperature over time, with 4 detected anomalies" });
      assert.ok(await chart.isVisible());
      const titles = await chart.locator("circle").evaluateAll((cs) =>
        cs.map((c) => c.parentElement?.querySelector("title")?.textContent ?? "")
      );
      const at = (hour: number) =>
        new Date(Date.UTC(2026, 0, 1) + hour * 3600_000).toISOString().slice(0, 16).replace("T", " ");
      assert.deepEqual(titles.map((x) => x.slice(0, 16)).sort(), SERIES_ANOMALIES.map(at).sort());
      // the table lists the flagged rows: the four spikes
      const [head, ...body] = await tableText(page, "Rows by anomaly score");
      assert.deepEqual(head.slice(0, 4), ["Row", "timestamp", "Score", "Anomaly"]);
      assert.deepEqual(body.map((r) => r[3]), ["anomaly", "anomaly", "anomaly", "anomaly"]);
      assert.deepEqual(body.map((r) => hourOf(r[1])).sort((a, b) => a - b), SERIES_ANOMALIES);
      await checkPage(h, page, "a detection job's results");
      if (Deno.env.get("UPDATE_SCREENSHOTS")) {
        await page.screenshot({ path: new URL("cleaning.png", SHOTS).pathname, fullPage: true });
      }
      // every row by score, on request: the spikes first, then the others
      await page.getByRole("link", { name: "Show every row by score" }).click();
      await page.waitForURL(/rows=all/);
      const all = (await tableText(page, "Rows by anomaly score")).slice(1);
      assert.ok(all.length > 4);
      assert.deepEqual(all.slice(0, 5).map((r) => r[3]), ["anomaly", "anomaly", "anomaly", "anomaly", "no"]);
      await page.getByRole("link", { name: "Show only the flagged rows" }).click();
      await page.waitForURL((u) => !u.search.includes("rows=all"));
    });

    await t.step("Reject: the job is rejected, cannot be approved, and nothing is written", async () => {
      await page.getByLabel("Reason").fill("too many flags on the daily peaks");
      await page.getByRole("button", { name: "Reject" }).click();
      await page.waitForURL(/rejected=1/);
      assert.match(await page.getByRole("heading", { name: "Rejected" }).textContent() ?? "", /Rejected/);
      assert.match(await page.locator("main").textContent() ?? "", /too many flags on the daily peaks/);
      assert.equal(await page.getByRole("button", { name: "Approve" }).count(), 0);
      await checkPage(h, page, "a rejected job");
      const job = (await listJobs(h.app))[0];
      assert.equal(job.status, "rejected");
      assert.equal(job.approval, null);
      const docs = await h.app.store.list({ db: DEMO_DB, collection: DEMO_SERIES });
      assert.equal(docs.filter((d) => "is_anomaly" in d).length, 0, "no flag written");
      // a late approval (from a page opened before the rejection) is refused on a page, not as JSON. Sent
      // by the context's request API: in the packaged single-process Chromium a page's fetch() can carry
      // another context's cookie.
      const csrf = await page.locator("input[name=_csrf]").first().inputValue();
      const late = await page.request.post(`${page.url().split("?")[0]}/approve`, {
        form: { _csrf: csrf },
        headers: { origin: h.app.url },
      });
      assert.equal(late.status(), 409);
      assert.match(late.headers()["content-type"], /^text\/html/);
      assert.match(await late.text(), /was rejected by .* never written back/);
    });

    assert.deepEqual(h.foreignRequests(), []);
    assert.deepEqual(h.problems, []);
  },
  { env: ENV },
);
