/** The review page's result panel (the open run) and its write-back panel (a mitigation's). */
import { can } from "../../shared/role_notice.tsx";
import { Field, Message, Panel, Submit, When } from "../../shared/components.tsx";
import { frozenOf } from "../settings_request.ts";
import { int } from "../formats.ts";
import { runHref, writebackHref } from "../hrefs.ts";
import type { AuditView, MitigationView } from "../run_views.ts";
import { writebacksOf } from "../task_writebacks.ts";
import { type ReviewView, who } from "./review_view.ts";
import { AuditResult } from "./audit_result.tsx";
import { MitigationResult } from "./mitigation_result.tsx";
import { RunHeading } from "./runs_list.tsx";
import type { StoredRun } from "../../../../services/spatial/runs.ts";

export const WritebackPanel = ({ v, run }: { v: ReviewView; run: StoredRun }) => {
  const done = writebacksOf(v.task, run.run_id);
  const records = run.run.summary.n_predictions;
  return (
    <Panel id="writeback-title" anchor="writeback" title="Write back">
      <p>
        Writes this run's final predictions into a new field of the collection's documents:{" "}
        {typeof records === "number" ? <strong>{int(records)}</strong> : "every"} record
        {records === 1 ? "" : "s"}
        {run.run.kind === "threshold" ? " (the test part)" : ""}. You confirm before anything is written.
      </p>
      <Message kind="error" text={v.writeback.errors?.form} />
      {can(v.session, "steward") && (
        <form method="get" action={writebackHref(v.name, run.run_id)} class="inline-fields">
          <Field
            label="New field"
            name="new_field"
            state={v.writeback}
            value=""
            autocomplete="off"
            attrs={{ spellcheck: false }}
            hint="Letters, digits and _, not starting with a digit"
          />
          <Submit label="Write back" />
        </form>
      )}
      {done.length > 0 && (
        <ul class="writebacks">
          {done.map((w) => (
            <li>
              Field <code>{String(w.field)}</code> written <When iso={w.at} />: {int(Number(w.matched))}{" "}
              matched, {int(Number(w.modified))} modified
              {Number(w.not_found) > 0 && <>, {int(Number(w.not_found))} not found</>}.
              {typeof w.undone_at === "string" && (
                <>
                  {" "}Undone <When iso={w.undone_at} />.
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </Panel>
  );
};

export const ResultPanel = ({ v }: { v: ReviewView }) => {
  const run = v.run;
  if (!run) {
    const latest = v.runs[0];
    return (
      <Panel id="result-title" anchor="result" title="Result">
        <p class="muted">
          {latest
            ? (
              <>
                No run open. <a href={runHref(v.name, latest.run_id)}>Open the latest run</a> or start one.
              </>
            )
            : "No run yet. Choose the settings and select “Run audit” to see where the model treats places differently."}
        </p>
      </Panel>
    );
  }
  const request = (run.run.request ?? {}) as { equal_opp?: boolean };
  const equalOpp = request.equal_opp !== false;
  const frozen = frozenOf(v.form.values ?? {}); // the ticks the settings form holds now
  return (
    <Panel id="result-title" anchor="result">
      <RunHeading run={run.run} by={who(v.session, run.run.requested_by)} />
      {run.run.kind === "audit"
        ? (
          <AuditResult
            task={v.name}
            runId={run.run_id}
            a={run.answer as unknown as AuditView}
            sort={v.sort}
            equalOpp={equalOpp}
            frozen={frozen}
          />
        )
        : (
          <MitigationResult
            task={v.name}
            runId={run.run_id}
            kind={run.run.kind}
            m={run.answer as unknown as MitigationView}
            sort={v.sort}
            equalOpp={equalOpp}
            frozen={frozen}
          />
        )}
    </Panel>
  );
};
