/**
 * A job's results as page documents (`<job>.<attempt>.<page>`): a reviewer reads them page by page, and
 * an approval streams them. Pages are keyed by attempt, so a runner that lost its lease midway cannot
 * mix its pages into those of the runner that took over; the job record names the attempt that counts.
 * A page stays well under Deno KV's 64 KiB value limit.
 */
import type { Store } from "../../store/store.ts";
import { type JobRecord, type ResultsMeta, resultsRef } from "./job_queue.ts";

export type ResultEntry = Record<string, unknown>;

const MAX_ITEMS = 500;
const MAX_CHARS = 40_000;
const WRITE_BATCH = 20;

const pageId = (jobId: string, attempt: number, page: number) => `${jobId}.${attempt}.${page}`;

/** Cuts entries into pages by count and size. */
function paginate(entries: ResultEntry[]): ResultEntry[][] {
  const pages: ResultEntry[][] = [];
  let cur: ResultEntry[] = [], chars = 0;
  for (const e of entries) {
    const size = JSON.stringify(e).length + 1;
    if (cur.length && (cur.length >= MAX_ITEMS || chars + size > MAX_CHARS)) {
      pages.push(cur);
      cur = [];
      chars = 0;
    }
    cur.push(e);
    chars += size;
  }
  if (cur.length || !pages.length) pages.push(cur);
  return pages;
}

/** Writes the entries as pages of this attempt; `onProgress` hears the fraction written. */
export async function writeResults(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  entries: ResultEntry[],
  onProgress: (fraction: number) => Promise<void> = () => Promise.resolve(),
): Promise<ResultsMeta> {
  const pages = paginate(entries);
  for (let i = 0; i < pages.length; i += WRITE_BATCH) {
    const docs = pages.slice(i, i + WRITE_BATCH).map((items, k) => ({
      _id: pageId(job._id, job.attempt, i + k + 1),
      job_id: job._id,
      attempt: job.attempt,
      page: i + k + 1,
      items,
    }));
    await store.deleteMany(resultsRef(tesseraDb), docs.map((d) => d._id)); // a retried write replaces
    await store.insertMany(resultsRef(tesseraDb), docs);
    await onProgress(Math.min(1, (i + WRITE_BATCH) / pages.length));
  }
  return { attempt: job.attempt, pages: pages.length, total: entries.length };
}

/** One page (1-based) of a finished job's results, or null past the last page. */
export async function readResultsPage(store: Store, tesseraDb: string, job: JobRecord, page: number) {
  const meta = job.results;
  if (!meta || page < 1 || page > meta.pages) return null;
  const doc = await store.get(resultsRef(tesseraDb), pageId(job._id, meta.attempt, page));
  return { page, pages: meta.pages, total: meta.total, items: (doc?.items ?? []) as ResultEntry[] };
}

/** Every page of a finished job's results, in order. */
export async function* allResults(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
): AsyncGenerator<ResultEntry[]> {
  for (let p = 1; p <= (job.results?.pages ?? 0); p++) {
    yield (await readResultsPage(store, tesseraDb, job, p))!.items;
  }
}

/** Deletes the pages an attempt wrote (a runner that lost its lease cleans up after itself). */
export async function deleteResults(
  store: Store,
  tesseraDb: string,
  job: JobRecord,
  pages: number,
): Promise<void> {
  const ids = Array.from({ length: pages }, (_, i) => pageId(job._id, job.attempt, i + 1));
  await store.deleteMany(resultsRef(tesseraDb), ids);
}
