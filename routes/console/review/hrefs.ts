/**
 * The addresses of a task's review: where its form posts, its runs, their maps and CSV files, its
 * frontier, its history and a write-back's undo.
 */
import { taskHref } from "../shared/hrefs.ts";

const enc = encodeURIComponent;

/** Where the settings form posts (audit, relabel and threshold: the button says which). */
export const reviewPostHref = (task: string) => `${taskHref(task)}/review`;
/** A kept run's page. */
export const runHref = (task: string, runId: string) => `${taskHref(task)}/runs/${enc(runId)}`;
/** One map of a run, as the runs service serves it (HTML page or PNG). */
export const mapHref = (task: string, runId: string, name: string) =>
  `${runHref(task, runId)}/maps/${enc(name)}`;
/** A CSV file of a run. */
export const csvHref = (task: string, runId: string, file: CsvFile) => `${runHref(task, runId)}/${file}.csv`;
/** A run's review report (one self-contained HTML document). */
export const reportHref = (task: string, runId: string) => `${runHref(task, runId)}/report`;
/** The write-back confirmation of a run. */
export const writebackHref = (task: string, runId: string) => `${runHref(task, runId)}/writeback`;

/** The undo's confirmation of a write-back (GET), and where it posts. */
export const undoHref = (task: string, writebackId: string) =>
  `${taskHref(task)}/writebacks/${enc(writebackId)}/undo`;
/** The task page's history (older pages: `?before=`). */
export const historyHref = (task: string, before?: string) =>
  `${taskHref(task)}${before ? `?before=${enc(before)}` : ""}#history`;

export type CsvFile = "regions" | "thresholds" | "predictions";

/** The frontier's page, showing the points kept as these runs. */
export const frontierHref = (task: string, runIds: string[]) =>
  `${taskHref(task)}/frontier?runs=${runIds.map(encodeURIComponent).join(",")}`;

/** A map of a run as the runs service keeps it: its PNG (`<name>_image`) and its HTML page (`<name>_html`). */
export const mapFiles = (task: string, runId: string, name: string) => ({
  png: mapHref(task, runId, `${name}_image`),
  html: mapHref(task, runId, `${name}_html`),
});
