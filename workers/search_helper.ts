/**
 * The module of a worker that a solving worker starts for PROMIS-Exact's second core
 * (search_elsewhere.ts): one message in (the problem, the start flips, the end), one answer out.
 */
import { searchAndKick } from "../core/spatial/mitigate/exact_local.ts";
import type { MitigationProblem } from "../core/spatial/mitigate/problem.ts";
import { xlogxTable } from "../core/spatial/statistic.ts";

/** Kicks seeded apart from the first core's (exact_local.ts iterateFlips' own seed). */
const SEED = 0x2c0e;

interface Job {
  pr: MitigationProblem;
  start: Int32Array;
  /** The end in ms since the epoch, on the starter's clock: loading this module takes no time from it. */
  until: number;
}

const scope = self as unknown as Worker;
scope.onmessage = (e: MessageEvent<Job>) => {
  const { pr, start, until } = e.data, deadline = until - performance.timeOrigin;
  const r = searchAndKick(pr, xlogxTable(pr.N), start, deadline, SEED);
  scope.postMessage(r, [r.k.buffer as ArrayBuffer]);
};
