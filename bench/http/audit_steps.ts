/** The steps of bench/http_end_to_end.ts that import the case, make its task and audit it. */
import { exportReferenceAudit } from "../lar_like_case.ts";
import { ROOT } from "../dev_task.ts";
import { jsonOf, timingFields, upload } from "./requests.ts";
import { log, mb, sec } from "./report.ts";
import { run } from "./service.ts";
import type { Session } from "./session.ts";

/** import (the NDJSON `caseFile` of `caseBytes`, when given) and the task document (when `needTask`). */
export async function importAndTask(
  s: Session,
  caseFile: string | null,
  caseBytes: number,
  needTask: boolean,
): Promise<void> {
  const { svc, name, token, step, post } = s;
  if (caseFile) {
    const tok = await token();
    const a = await step("import (POST NDJSON)", async () => {
      return await upload(`${svc.base}/api/datasets/bench/${name}?mode=create`, caseFile, {
        authorization: `Bearer ${tok}`,
        "content-type": "application/x-ndjson",
      });
    }, true);
    const j = jsonOf(a!);
    log(
      `  imported ${j.rows} rows, ${(j.columns as unknown[] | undefined)?.length} columns ` +
        `(${mb(caseBytes)} MB at ${(caseBytes / 1048576 / (a!.ms / 1000)).toFixed(1)} MB/s) ` +
        timingFields(j),
    );
  }
  if (needTask) {
    const tok = await token();
    await step(
      "task document",
      post(tok, "/api/tasks/documents", {
        database_name: "bench",
        data_collection_name: name,
        status: "pending",
        pipeline_name: "http_end_to_end",
        component: "spatial-hitl",
      }),
      true,
    );
  }
}

/** The audits, cold, warm twice and with another seed, and numpy's reference: the first audit's run_id. */
export async function auditSteps(s: Session): Promise<string> {
  const { opts, c, equalOpp, py, rows, tmp, task, want, token, step, post } = s;
  const auditBody = { n_worlds: opts.worlds, rng: "fast", include_maps: true, equal_opp: equalOpp };
  let auditRun = "", ourSbi = NaN, ourT = NaN, ourSig = NaN;
  if (want("audit")) {
    const audits: [string, number][] = [["audit cold", 42], ["audit warm 1", 42], ["audit warm 2", 42], [
      "audit warm, seed 7",
      7,
    ]];
    for (const [label, seed] of audits) {
      const tok = await token();
      const a = await step(label, post(tok, `${task}/audit`, { ...auditBody, seed }));
      if (!a) continue;
      const j = jsonOf(a);
      auditRun ||= String(j.run_id);
      ourSbi = Number(j.sbi_score);
      ourT = Number(j.signif_thresh);
      ourSig = Number(j.total_signif_regions);
      log(
        `  N in scope ${j.n_individuals}, P ${j.n_positives}, regions ${
          (j.stats as unknown[] | undefined)?.length
        }, SBI ${j.sbi_score}, T ${j.signif_thresh}, significant ${j.total_signif_regions}; ${
          timingFields(j)
        }`,
      );
    }
    if (py && c) {
      const dir = `${tmp}/reference_audit`;
      const ex = exportReferenceAudit(c, dir, equalOpp);
      log(`reference audit: ${ex.n} individuals in scope, ${ex.r} regions; running numpy...`);
      const r = await run(py, ["bench/reference_audit.py", dir, String(opts.worlds), "42"], { cwd: ROOT });
      const line = r.stdout.trim().split("\n").pop() ?? "";
      log(`  ${r.ok ? line : `failed: ${r.stderr.slice(-800)}`}; process ${sec(r.ms)} s`);
      const worlds = line.match(/worlds took ([\d.]+) s/)?.[1];
      const num = (label: string) =>
        Number(line.match(new RegExp(`${label} = (?:np\\.float64\\()?([-+\\d.e]+)`))?.[1]);
      const sbi = num("SBI"), T = num("T\\(0\\.005\\)");
      const sig = Number(line.match(/significant = (\d+)/)?.[1]);
      const cold = rows.find((x) => x.step === "audit cold");
      if (cold && r.ok) cold.reference = `${sec(r.ms)} (worlds ${worlds})`;
      if (r.ok && auditRun) {
        log(
          `  ours against numpy: SBI ${ourSbi} / ${sbi} (${
            Math.abs(ourSbi - sbi) <= 1e-9 * Math.abs(sbi) ? "the same to 9 digits" : "DIFFERENT"
          }), T ${ourT} / ${T}, significant ${ourSig} / ${sig} (T and the count differ by the ` +
            `Monte Carlo draws: ours rng fast, numpy its own stream)`,
        );
      }
    }
  }

  return auditRun;
}
