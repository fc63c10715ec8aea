import assert from "node:assert/strict";
import { WorkerPool } from "../../../workers/pool.ts";
import { correlateOnPool } from "../../../services/valuation/on_pool.ts";
import { correlationMatrices, METHODS } from "../../../core/stats/correlation.ts";
import { correlationColumns } from "../../../bench/valuation_data.ts";

Deno.test("correlateOnPool: workers taking columns and pairs from shared counters give the one-thread matrices", async () => {
  // Continuous, integer-valued and two-decimal columns, some with gaps, plus a constant one: every
  // pair's path (trie, table, gaps, constant) is taken by whichever worker claims it.
  const columns = correlationColumns(3000, 9, 5);
  columns.push(new Float64Array(3000).fill(2));
  const pool = new WorkerPool(new URL("../../../workers/worker.ts", import.meta.url), 3);
  try {
    for (const methods of [[...METHODS], ["kendall" as const]]) {
      const want = correlationMatrices(columns, methods);
      const { matrices: got, rankings } = await correlateOnPool(pool, columns, methods);
      for (const m of methods) assert.deepEqual(got[m], want[m], m);
      assert.ok(Number.isNaN(got[methods[0]]![9 * 10 + 9]), "a constant column has no coefficient");
      // the rankings given back, given again, are used as they are and give the same matrices
      assert.equal(rankings[9], null, "a constant column is not ranked");
      const again = await correlateOnPool(pool, columns, methods, rankings);
      for (const m of methods) assert.deepEqual(again.matrices[m], want[m], m);
      // ...as they are: the same shared memory, not a new sort (a write through one shows in the other)
      const [given, back] = [rankings[0]!.rank, again.rankings[0]!.rank];
      const was = given[0];
      back[0] = was + 1;
      assert.equal(given[0], was + 1);
      back[0] = was;
    }
  } finally {
    pool.close();
  }
});
