/**
 * Undoing an approval on a job's page: the "Undo approval" action, its confirmation (what it will
 * restore, before anything runs) and the approvals taken back so far.
 */
import { PostForm, Submit, When } from "../../shared/components.tsx";
import { count, Stats } from "../../shared/analysis_parts.tsx";
import { jobHref } from "../hrefs.ts";
import type { JobView } from "./job_view.ts";

/** The cells an undo would take back: those the write-back wrote, or found written by an earlier run. */
const cellsOf = (wb: Record<string, unknown>) =>
  Number(wb.cells_written ?? 0) + Number(wb.already_written ?? 0);

/** The fields the write-back overwrote that existed before it (an undo leaves them as written). */
const keptAsWritten = (v: JobView) => {
  const wb = v.job.approval!.write_back;
  const sameFields = v.job.task === "impute" && v.job.approval!.approval_info.target !== "new_fields";
  return sameFields || !Array.isArray(wb.fields_before) ? [] : wb.fields_before as string[];
};

/** "Undo approval": a link to its confirmation, or the confirmation itself when asked for. */
export const UndoAction = ({ v }: { v: JobView }) => {
  const a = v.job.approval!;
  const wb = a.write_back;
  if (wb.state === "running" || a.undo?.state === "running") return null;
  const href = jobHref(v.job.job_id);
  if (!v.confirmUndo) {
    return (
      // a GET: it only shows the confirmation, which sends the undo (with the CSRF token)
      <form method="get" action={href} aria-label="Undo approval">
        <input type="hidden" name="confirm" value="undo" />
        <Submit label="Undo approval…" kind="secondary" />
      </form>
    );
  }
  const kept = keptAsWritten(v);
  return (
    <PostForm action={`${href}/undo`} session={v.session} needs="steward" labelledBy="undo-h" class="confirm">
      <h3 id="undo-h">Undo this approval?</h3>
      {wb.state === "skipped"
        ? <p>Nothing was written into the dataset: only the approval is taken back.</p>
        : (
          <>
            <p>
              Every cell the write-back wrote gets back what it held before (a field it created is removed). A
              cell changed since is left as it is and its document listed.
            </p>
            <Stats
              items={[
                ["cells to restore", count(cellsOf(wb))],
                ["documents affected", count(wb.matched)],
              ]}
            />
          </>
        )}
      {kept.length > 0 && (
        <p>
          {`Not restored: ${kept.join(", ")} existed before the write-back and its earlier values were not `}
          kept, so it stays as written.
        </p>
      )}
      <p class="muted">The job can be approved again afterwards.</p>
      <Submit label="Undo approval" kind="danger" busy="Restoring the dataset…" />
      <p>
        <a href={href}>Cancel</a>
      </p>
    </PostForm>
  );
};

/** The approvals taken back, oldest first: who approved, who undid, what was restored and skipped. */
export const UndoneApprovals = ({ v }: { v: JobView }) => {
  const undone = v.job.undone_approvals ?? [];
  if (!undone.length) return null;
  return (
    <section class="panel" aria-labelledby="undone-h">
      <h2 id="undone-h">Approvals undone</h2>
      <ul>
        {undone.map((a) => {
          const u = a.undo ?? {};
          const skipped = Array.isArray(u.skipped) ? u.skipped.length : 0;
          return (
            <li>
              {`Approved by ${a.approved_by_username ?? a.approved_by} `}
              <When iso={a.approved_at} />
              {`, undone by ${u.undone_by_username ?? u.undone_by} `}
              <When iso={String(u.undone_at)} />
              {`: ${count(u.restored)} cells restored, ${
                count(skipped)
              } documents changed since left as they are.`}
            </li>
          );
        })}
      </ul>
    </section>
  );
};
