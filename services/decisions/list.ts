/**
 * Reading the decision log (`GET /api/decisions`): filtered by task, dataset, user, kind, run, job and time,
 * newest first, a page at a time. Outboxes are drained first, so a decision whose drain a crash cut off
 * is listed all the same.
 */
import type { Store } from "../../store/store.ts";
import type { DecisionEntry, DecisionKind } from "./entry.ts";
import { decisionsRef } from "./entry.ts";
import { sweepDecisions } from "./outbox.ts";

export interface DecisionQuery {
  task?: string;
  dataset?: string;
  /** A user's `sub` or username. */
  user?: string;
  kind?: DecisionKind;
  run_id?: string;
  job_id?: string;
  /** ISO times: entries at or after `from`, before `to`. */
  from?: string;
  to?: string;
  /** Entries older than this entry id (the previous page's `next`). */
  before?: string;
  limit: number;
}

export interface DecisionPage {
  decisions: (Omit<DecisionEntry, "_id"> & { entry_id: string })[];
  /** Pass as `before` for the next (older) page; null on the last. */
  next: string | null;
}

/** The entries matching `q`, newest first; the log is read whole (it holds decisions, not data). */
export async function listDecisions(
  deps: { store: Store; config: { TESSERA_DB: string } },
  q: DecisionQuery,
): Promise<DecisionPage> {
  const { store, config } = deps;
  await sweepDecisions(store, config.TESSERA_DB);
  const eq = {
    ...(q.task !== undefined && { task: q.task }),
    ...(q.dataset !== undefined && { dataset: q.dataset }),
    ...(q.kind !== undefined && { kind: q.kind }),
    ...(q.run_id !== undefined && { run_id: q.run_id }),
    ...(q.job_id !== undefined && { job_id: q.job_id }),
  };
  const from = q.from === undefined ? -Infinity : Date.parse(q.from);
  const to = q.to === undefined ? Infinity : Date.parse(q.to);
  const stored = await store.list(decisionsRef(config.TESSERA_DB), eq) as unknown as DecisionEntry[];
  const hits = stored.filter((e) => {
    const at = Date.parse(e.at);
    return at >= from && at < to && (q.before === undefined || e._id < q.before) &&
      (q.user === undefined || e.user.sub === q.user || e.user.username === q.user);
  });
  hits.sort((a, b) => a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
  const page = hits.slice(0, q.limit);
  return {
    decisions: page.map(({ _id, ...rest }) => ({ entry_id: _id, ...rest })),
    next: hits.length > q.limit ? page[page.length - 1]._id : null,
  };
}
