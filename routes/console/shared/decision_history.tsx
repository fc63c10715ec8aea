// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * A history of decisions (the decision log, services/decisions/list.ts) as a table, newest first: when,
 * who, what, the counts, the run / job / write-back it names and a short summary of its facts. A page
 * gives the entries (one page of `listDecisions`) and, when there are older ones, the link to them; an
 * `actions(entry)` render prop adds a last column (the task page's Undo).
 */
import type { Child } from "hono/jsx";
import { DataTable, When } from "./components.tsx";
import type { DecisionPage } from "../../../services/decisions/list.ts";
import type { DecisionKind } from "../../../services/decisions/entry.ts";

/** One entry as `listDecisions` answers it. */
export type HistoryEntry = DecisionPage["decisions"][number];

/** What each kind of decision is called in the console. */
const KIND_LABELS: Record<DecisionKind, string> = {
  writeback: "Write-back",
  writeback_undo: "Write-back undone",
  cleaning_approval: "Cleaning approved",
  cleaning_approval_undo: "Cleaning approval undone",
  cleaning_rejection: "Cleaning rejected",
  task_status: "Task status",
  dataset_import: "Import",
  dataset_replace: "Replace",
  dataset_delete: "Delete",
};

/** Facts shown at most, and list items per fact: the summary stays one glance (the API has them all). */
const MAX_FACTS = 6;
const MAX_ITEMS = 5;

/** Who decided, as a person reads it: the username, else the `sub` (a system identity: `cli:ann`). */
export const whoOf = (e: HistoryEntry): string => e.user.username ?? e.user.sub;

/** The counts as "3 imported, 5 replaced"; a dash when none. */
export function countsText(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, n]) => `${n.toLocaleString("en")} ${k.replaceAll("_", " ")}`);
  return parts.length ? parts.join(", ") : "—";
}

/** The run, job or write-back an entry names, as "run 1a2b…" (the full id in the title). */
function reference(e: HistoryEntry): Child {
  const refs = ([["run", e.run_id], ["job", e.job_id], ["write-back", e.writeback_id]] as const)
    .filter(([, id]) => id !== null);
  if (!refs.length) return <span class="muted">—</span>;
  return (
    <>
      {refs.map(([what, id], i) => (
        <>
          {i > 0 && <br />}
          {what} <code title={id!}>{id!.length > 12 ? `${id!.slice(0, 10)}…` : id}</code>
        </>
      ))}
    </>
  );
}

/** One fact's value in a few words: lists cut at MAX_ITEMS, objects as compact JSON cut short. */
function factText(v: unknown): string {
  if (Array.isArray(v)) {
    const shown = v.slice(0, MAX_ITEMS).map(String).join(", ");
    return v.length > MAX_ITEMS ? `${shown}, +${v.length - MAX_ITEMS} more` : shown;
  }
  if (typeof v === "object" && v !== null) {
    const s = JSON.stringify(v);
    return s.length > 60 ? `${s.slice(0, 59)}…` : s;
  }
  return String(v);
}

/** The first MAX_FACTS facts that say something (not null, not empty), as "key: value" lines. */
export function factsSummary(facts: Record<string, unknown>): string[] {
  return Object.entries(facts)
    .filter(([, v]) => v !== null && v !== undefined && v !== "" && !(Array.isArray(v) && !v.length))
    .slice(0, MAX_FACTS)
    .map(([k, v]) => `${k.replaceAll("_", " ")}: ${factText(v)}`);
}

export interface DecisionHistoryProps {
  entries: HistoryEntry[];
  /** The table region's accessible name. */
  label?: string;
  /** What the empty state says. */
  empty?: string;
  /** The page of older entries (the list's `next` as `before`), when there are any. */
  olderHref?: string | null;
  /** A last column of controls per entry (Undo); none when absent. */
  actions?: (entry: HistoryEntry) => Child;
}

/** The decisions as a table, newest first as given; a line saying there are none when empty. */
export function DecisionHistory(p: DecisionHistoryProps) {
  const label = p.label ?? "History";
  if (!p.entries.length) {
    return <p class="empty">{p.empty ?? "No decisions are recorded yet."}</p>;
  }
  const actions = p.actions;
  return (
    <>
      <DataTable
        label={label}
        compact
        rows={p.entries}
        columns={[
          { head: "When", class: "nowrap", cell: (e) => <When iso={e.at} /> },
          { head: "Who", cell: (e) => <span title={e.user.sub}>{whoOf(e)}</span> },
          { head: "Decision", rowHead: true, cell: (e) => KIND_LABELS[e.kind] ?? e.kind },
          { head: "Counts", cell: (e) => countsText(e.counts) },
          { head: "Run, job or write-back", cell: reference },
          {
            head: "Facts",
            cell: (e) => {
              const lines = factsSummary(e.facts);
              if (!lines.length) return <span class="muted">—</span>;
              return <>{lines.map((l, i) => <>{i > 0 && <br />}{l}</>)}</>;
            },
          },
          actions && { head: "Actions", cell: (e) => actions(e) },
        ]}
      />
      {p.olderHref && (
        <p>
          <a href={p.olderHref}>Older decisions</a>
        </p>
      )}
    </>
  );
}
