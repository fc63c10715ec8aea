/** The mitigation steps of bench/http_end_to_end.ts: relabel, the frontier, issue 35's budgets, threshold. */
import { jsonOf, timingFields } from "./requests.ts";
import { log } from "./report.ts";
import type { Session } from "./session.ts";

/** Each mitigation step asked for: the first mitigation's run_id. */
export async function mitigationSteps(s: Session): Promise<string> {
  const { opts, equalOpp, notes, task, want, token, step, post } = s;
  const mitigationBody = { n_worlds: opts.worlds, rng: "fast", equal_opp: equalOpp };
  let mitigationRun = "";
  /** A solver that stopped without a solution (status 2, 3 or 4) is worth a note under the table. */
  const solverNote = (label: string, j: Record<string, unknown>) => {
    if (Number(j.solver_status_code) >= 2) {
      notes.push(
        `${label}: solver status ${j.solver_status_code} "${j.solver_status_message}" after ` +
          `${Number(j.solver_seconds).toFixed(1)} s (${j.solver_detail}): ${j.n_flips} flips, the time is ` +
          `that of reaching the default work_limit`,
      );
    }
  };
  if (want("relabel")) {
    const tok = await token();
    const a = await step(
      "relabel (approx)",
      post(tok, `${task}/mitigate/relabel`, { ...mitigationBody, approx: true }),
    );
    if (a) {
      const j = jsonOf(a);
      mitigationRun ||= String(j.run_id);
      solverNote("relabel", j);
      log(
        `  ${j.solver_status_message}, ${j.n_flips} flips of ${j.flip_budget}, objective ${j.objective}, ` +
          `significant ${(j.audit_before_mitigation as Record<string, unknown>)?.total_signif_regions} → ${
            (j.audit_after_mitigation as Record<string, unknown>)?.total_signif_regions
          }; ${timingFields(j)}`,
      );
    }
  }
  if (want("frontier")) {
    const budgets = [0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5];
    const a = await step(
      "frontier (10 budgets)",
      post(await token(), `${task}/mitigate/relabel/frontier`, { ...mitigationBody, budgets }),
    );
    if (a) {
      const j = jsonOf(a) as { points: Record<string, unknown>[] };
      for (const p of j.points) {
        log(
          `  ${p.budget_constr}: status ${p.solver_status_code}, ${p.n_flips} flips, objective ${p.objective}, ` +
            `SBI after ${p.sbi_after}, solver ${p.solver_seconds} s, ${p.elapsed_ms} ms`,
        );
      }
    }
  }
  for (const equal_opp of want("budgets") ? [false, true] : []) {
    for (const budget_constr of [0.05, 0.2, 2000]) {
      const label = `relabel ${equal_opp ? "EO" : "SP"} ${budget_constr}`;
      const body = { ...mitigationBody, equal_opp, approx: true, budget_constr, include_maps: false };
      const a = await step(label, post(await token(), `${task}/mitigate/relabel`, body));
      if (a) {
        const j = jsonOf(a);
        solverNote(label, j);
        log(
          `  ${j.solver_status_message}, ${j.n_flips} flips of ${j.flip_budget}, objective ${j.objective}, ` +
            `gap ${j.gap}; ${timingFields(j)}`,
        );
      }
    }
  }
  // PROMIS-Exact runs to its work limit (30 s) on this case: only when asked for by name
  const exactCases = opts.steps?.has("exact")
    ? [false, true].flatMap((e) => [0.05, 0.2, 2000, null].map((b) => [e, b] as const))
    : [];
  for (const [equal_opp, budget_constr] of exactCases) {
    const kind = budget_constr === null ? "threshold" : "relabel";
    const label = `${kind} exact ${equal_opp ? "EO" : "SP"}${
      budget_constr === null ? "" : ` ${budget_constr}`
    }`;
    const body = { ...mitigationBody, equal_opp, approx: false, include_maps: false, work_limit: 30 };
    const a = await step(
      label,
      post(
        await token(),
        `${task}/mitigate/${kind}`,
        budget_constr === null ? body : { ...body, budget_constr },
      ),
    );
    if (a) {
      const j = jsonOf(a);
      solverNote(label, j);
      log(
        `  status ${j.solver_status_code}, objective ${j.objective}, bound ${j.bound}, gap ${j.gap}, ` +
          `${j.n_flips} flips; ${timingFields(j)}`,
      );
    }
  }
  // twice: the first builds the regions of every individual, the second finds them kept (warm)
  for (const label of want("threshold") ? ["threshold", "threshold again"] : []) {
    const tok = await token();
    const a = await step(label, post(tok, `${task}/mitigate/threshold`, mitigationBody));
    if (a) {
      const j = jsonOf(a);
      mitigationRun ||= String(j.run_id);
      solverNote(label, j);
      log(
        `  ${j.solver_status_message}, ${j.n_flips} flips (test part ${j.test_size}), significant ${
          (j.audit_before_mitigation as Record<string, unknown>)?.total_signif_regions
        } → ${(j.audit_after_mitigation as Record<string, unknown>)?.total_signif_regions}; ${
          timingFields(j)
        }`,
      );
    }
  }

  return mitigationRun;
}
