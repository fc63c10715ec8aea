/** How bench/http_end_to_end.ts prints: figures, the log, and the table of steps. */
import type { ProbeStats } from "./probe.ts";

export const sec = (ms: number) => (ms / 1000).toFixed(2);
export const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
export const size = (
  bytes: number,
) => (bytes < 1048576 ? `${(bytes / 1024).toFixed(0)} KB` : `${mb(bytes)} MB`);
export const loadavg = () => Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");
export const log = (s: string) => console.log(s);

/** One step of the table. */
export interface Row {
  step: string;
  seconds: number | null;
  status: string;
  probe: ProbeStats | null;
  reference: string;
}

/** The Markdown table of the steps. */
export function printTable(rows: Row[]) {
  const head = ["step", "seconds", "healthz max ms", "> 50 ms", "VmRSS max MB", "reference s"];
  const body = rows.map((r) => [
    r.step,
    r.seconds === null ? `— (${r.status})` : r.seconds.toFixed(2),
    r.probe?.probes ? r.probe.maxMs.toFixed(0) : "—",
    r.probe ? `${r.probe.over50}/${r.probe.probes}` : "",
    r.probe ? r.probe.rssMaxMb.toFixed(0) : "",
    r.reference,
  ]);
  const width = head.map((h, j) => Math.max(h.length, ...body.map((b) => b[j].length)));
  const line = (cells: string[]) =>
    "| " + cells.map((s, j) => (j === 0 ? s.padEnd(width[j]) : s.padStart(width[j]))).join(" | ") + " |";
  log("");
  log(line(head));
  log("|" + width.map((w, j) => (j === 0 ? "-".repeat(w + 2) : "-".repeat(w + 1) + ":")).join("|") + "|");
  for (const b of body) log(line(b));
}
