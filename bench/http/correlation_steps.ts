/** The correlation steps of bench/http_end_to_end.ts: the case's, and a wide dataset's with pandas' reference. */
import { exportReferenceColumns } from "../lar_like_case.ts";
import { ROOT } from "../dev_task.ts";
import { jsonOf, timingFields, upload } from "./requests.ts";
import { log } from "./report.ts";
import { run } from "./service.ts";
import type { Session } from "./session.ts";

/** Correlations of the case (with `corr`), then of `wide` (written to `wideFile`) when given. */
export async function correlationSteps(
  s: Session,
  wide: Float64Array[] | null,
  wideFile: string,
): Promise<void> {
  const { opts, svc, name, py, rows, tmp, want, token, step, post } = s;
  const corrBody = { include_pearson: true, include_spearman: true, include_kendall: true };
  const correlations = async (dataset: string, what: string) => {
    for (const label of [`${what} cold`, `${what} warm`]) {
      const tok = await token();
      const a = await step(label, post(tok, `/api/correlations/analyze?dataset-id=${dataset}`, corrBody));
      if (a) {
        const j = jsonOf(a);
        log(
          `  shape ${JSON.stringify(j.dataset_shape)}, ${j.feature_count} numeric columns; ${
            timingFields(j)
          }`,
        );
      }
    }
  };
  if (want("corr")) {
    await correlations(name, "correlations (case)");
    for (const r of rows) if (r.step.startsWith("correlations (case)")) r.reference = "—";
  }
  if (wide) {
    const wideName = `wide_${opts.wide}x20`;
    const tok = await token();
    const a = await step("wide import (POST NDJSON)", async () => {
      return await upload(`${svc.base}/api/datasets/bench/${wideName}?mode=create`, wideFile, {
        authorization: `Bearer ${tok}`,
        "content-type": "application/x-ndjson",
      });
    });
    if (a) {
      await correlations(
        wideName,
        `correlations ${opts.wide! / 1e6 >= 1 ? `${opts.wide! / 1e6}M` : opts.wide} × 20`,
      );
      if (py) {
        const f64 = `${tmp}/wide.f64`;
        exportReferenceColumns(wide, f64);
        log("reference correlations: running pandas (Kendall pair by pair with scipy: minutes)...");
        const r = await run(py, ["bench/correlation_reference.py", f64], { cwd: ROOT });
        log(
          r.ok ? r.stdout.trimEnd().split("\n").map((l) => `  ${l}`).join("\n") : `  failed: ${r.stderr}`,
        );
        const parts = [...r.stdout.matchAll(/^(\w+): ([\d.]+) s/gm)].map((m) => Number(m[2]));
        const cold = rows.find((x) => x.step.startsWith("correlations") && x.step.includes("× 20 cold"));
        if (cold && r.ok) cold.reference = `${parts.reduce((s, x) => s + x, 0).toFixed(1)} (pandas, sum)`;
      }
    }
  }
}
