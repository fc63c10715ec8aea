/**
 * The task page's "History": the task's decisions newest first (the shared table), "Undo…" on each
 * write-back not undone yet, "Undone" with when and by whom on the others, and the notice of an undo
 * just done (its counts and the first skipped ids).
 */
import type { Child } from "hono/jsx";
import { Notice, Panel, When } from "../../shared/components.tsx";
import { DecisionHistory, type HistoryEntry, whoOf } from "../../shared/decision_history.tsx";
import { int } from "../formats.ts";
import { historyHref, undoHref } from "../hrefs.ts";
import type { TaskHistory } from "../task_history.ts";

/** The history as the page shows it: a page of it, and the notice of an undo just done. */
export interface HistoryView extends TaskHistory {
  /** The undo just done (`?undone=`): its log entry and the skipped ids its answer listed first. */
  justUndone?: { entry: HistoryEntry; skipped: string[] };
}

/** "Undone …by…" for an undone write-back, "Undo…" for one that is not; nothing for other decisions. */
function undoCell(task: string, undone: TaskHistory["undone"], e: HistoryEntry, steward: boolean): Child {
  if (e.kind !== "writeback" || e.writeback_id === null) return null;
  const undo = undone.get(e.writeback_id);
  if (undo) {
    return (
      <span class="undone">
        Undone <When iso={undo.at} /> by {whoOf(undo)}
      </span>
    );
  }
  if (!steward) return null; // undoing needs the steward role (the layout's notice says so)
  return (
    <a href={undoHref(task, e.writeback_id)}>
      Undo…<span class="visually-hidden">{` the write-back into ${e.field ?? "its field"}`}</span>
    </a>
  );
}

/** What an undo did: its counts (from its log entry) and the skipped ids, the first few with the total. */
export const UndoneNotice = ({ entry, skipped }: NonNullable<HistoryView["justUndone"]>) => {
  const n = (k: string) => entry.counts[k] ?? 0;
  const total = n("skipped");
  return (
    <Notice kind="success">
      <p>
        Write-back into <code>{entry.field}</code> undone: <strong>{int(n("restored"))}</strong>{" "}
        documents restored, <strong>{int(total)}</strong> skipped (changed since),{" "}
        <strong>{int(n("missing"))}</strong> missing (deleted since).
      </p>
      {total > 0 && (
        <p>
          Skipped, left as they are: {skipped.map((id, i) => (
            <>
              {i > 0 && ", "}
              <code>{id}</code>
            </>
          ))}
          {skipped.length < total ? ", …" : ""} ({int(total)} in all).
        </p>
      )}
    </Notice>
  );
};

/** The "History" panel of a task's page (`#history`). */
export const HistoryPanel = ({ task, h, steward }: { task: string; h: HistoryView; steward: boolean }) => (
  <Panel id="history" title="History" class="history">
    <p class="muted">
      {h.before
        ? (
          <>
            Older decisions. <a href={historyHref(task)}>Back to the newest</a>
          </>
        )
        : "Write-backs, their undos and status changes of this task, newest first, with who decided them."}
    </p>
    {h.justUndone && <UndoneNotice {...h.justUndone} />}
    <DecisionHistory
      label="History of this task"
      entries={h.page.decisions}
      empty="No decision about this task is recorded yet."
      olderHref={h.page.next && historyHref(task, h.page.next)}
      actions={(e) => undoCell(task, h.undone, e, steward)}
    />
  </Panel>
);
