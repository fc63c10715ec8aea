/**
 * A collection whose exact relabel runs for its whole work limit, for the tests of running and cancelled
 * mitigations: 3,000 individuals, each in every one of 16 regions with probability 1/2 (seeded), more often
 * predicted positive the more of the first eight regions hold them: about 3,000 units, which the exact
 * search cannot finish (measured: 4 million nodes in 5 s, stopped at its limit).
 */
import { Rng } from "../../core/random.ts";

/** The documents of that collection (`region_ids`, `y_pred`). */
export function unfinishedExactRows(): Record<string, unknown>[] {
  const rng = new Rng(7);
  return Array.from({ length: 3000 }, () => {
    const ids: number[] = [];
    for (let r = 0; r < 16; r++) if (rng.next() < 0.5) ids.push(r);
    const p = 0.15 + 0.5 * (ids.filter((r) => r < 8).length / 16);
    return { region_ids: ids, y_pred: rng.next() < p ? 1 : 0 };
  });
}
