/** A job's decision: who rejected or approved it and what was written, or the Approve and Reject forms. */
import { Field, Notice, Panel, PostForm, SelectField, Submit, When } from "../../shared/components.tsx";
import { Busy, count, Stats } from "../../shared/analysis_parts.tsx";
import { jobHref } from "../hrefs.ts";
import type { JobView } from "./job_view.ts";
import { UndoAction } from "./undo_parts.tsx";

export const Decision = ({ v }: { v: JobView }) => {
  const { job } = v;
  if (job.status === "rejected") {
    const r = job.rejection;
    return (
      <Panel id="decision-h" title="Rejected">
        <p>
          {`Rejected by ${r?.rejected_by_username ?? r?.rejected_by ?? "a reviewer"} `}
          <When iso={r?.rejected_at} />. Its results are never written into the dataset.
        </p>
        {r?.reason && (
          <p>
            Reason: <q>{r.reason}</q>
          </p>
        )}
      </Panel>
    );
  }
  if (job.approval) {
    const a = job.approval;
    const wb = a.write_back as Record<string, unknown>;
    return (
      <Panel id="decision-h" title="Approved">
        <p>
          {`Approved by ${a.approved_by_username ?? a.approved_by} `}
          <When iso={a.approved_at} />.
        </p>
        {wb.state === "running"
          ? <p>The results are being written into the dataset.</p>
          : wb.state === "skipped"
          ? <p>Nothing was written into the dataset (write_back: false).</p>
          : (
            <Stats
              items={[
                [job.task === "impute" ? "cells written" : "rows flagged", count(wb.cells_written)],
                ["documents changed", count(wb.modified)],
                ["cells changed since the job ran, left alone", count(wb.skipped_changed)],
                ["fields written", Array.isArray(wb.fields) ? wb.fields.join(", ") : "—"],
              ]}
            />
          )}
        {typeof a.approval_info.comment === "string" && (
          <p>
            Comment: <q>{a.approval_info.comment}</q>
          </p>
        )}
        {a.undo?.state === "running" && <p>This approval is being undone.</p>}
        <UndoAction v={v} />
      </Panel>
    );
  }
  if (job.status !== "succeeded") return null;
  const impute = job.task === "impute";
  return (
    <Panel id="decision-h" title="Your decision">
      {v.approve.errors?.form && <Notice kind="error">{v.approve.errors.form}</Notice>}
      <div class="decisions">
        <PostForm
          action={`${jobHref(job.job_id)}/approve`}
          session={v.session}
          needs="steward"
          labelledBy="approve-h"
        >
          <h3 id="approve-h">Approve and write back</h3>
          {impute
            ? (
              <>
                <SelectField
                  label="Write the filled values into"
                  name="target"
                  state={v.approve}
                  value="same_fields"
                  options={[
                    ["same_fields", "the same fields (fill the gaps)"],
                    ["new_fields", "new fields (column + suffix)"],
                  ]}
                />
                <Field
                  label="Suffix of new fields"
                  name="suffix"
                  state={v.approve}
                  value="_imputed"
                  hint="Only for new fields: temperature → temperature_imputed."
                />
              </>
            )
            : (
              <>
                <Field
                  label="Flag field"
                  name="flag_field"
                  state={v.approve}
                  value="is_anomaly"
                  hint="A new field set true or false on every row."
                />
                <Field
                  label="Score field"
                  name="score_field"
                  state={v.approve}
                  hint="Empty: the score is not written."
                />
              </>
            )}
          <Field label="Comment" name="comment" state={v.approve} hint="Optional; kept with the approval." />
          <Submit label="Approve" />
          <Busy>Writing the results into the dataset…</Busy>
        </PostForm>
        <PostForm
          action={`${jobHref(job.job_id)}/reject`}
          session={v.session}
          needs="steward"
          labelledBy="reject-h"
        >
          <h3 id="reject-h">Reject</h3>
          <p class="muted">The results are never written back, and the job can no longer be approved.</p>
          <Field label="Reason" name="reason" state={v.reject} hint="Optional; kept with the rejection." />
          <Submit label="Reject" kind="danger" />
        </PostForm>
      </div>
    </Panel>
  );
};
