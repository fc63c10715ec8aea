/**
 * Typed loader of the Monte Carlo kernel (wasm/audit.ts compiled to audit.wasm): copies a plan into
 * the module's linear memory and runs a range of worlds. Each worker isolate has its own instance (the
 * import is per isolate), so two workers run two ranges at once.
 */
import * as kernel from "../../wasm/audit.wasm";
import { Layout } from "../../wasm/layout.ts";
import { type AuditPlan, LANES } from "./plan.ts";
import type { AliasTables } from "./binomial.ts";

const exports = kernel as unknown as {
  memory: WebAssembly.Memory;
  heapBase(): number;
  worlds(...args: number[]): void;
};

const MT_WORDS = 624;

/** Each signature's table as [size, first cell, lo, 0], so a draw reads one 16-byte record. */
function perSignature(tb: AliasTables): Int32Array {
  const out = new Int32Array(tb.tableOf.length * 4);
  tb.tableOf.forEach((t, s) => out.set([tb.size[t], tb.start[t], tb.lo[t]], 4 * s));
  return out;
}

/** World maxima of s for worlds w0 .. w1-1, computed by the WebAssembly kernel. */
export function worldsWasm(plan: AuditPlan, seed: number, w0: number, w1: number): Float64Array {
  const out = new Float64Array(w1 - w0);
  if (plan.positives === 0 || plan.positives === plan.n || w1 <= w0) return out;
  const nSig = plan.sigCount.length, K = plan.scored.length;
  const tb = plan.tables, bern = plan.bernoulli;
  const empty = new Int32Array(0);
  const inputs: [Int32Array | Float64Array, number][] = [];
  const lay = new Layout(exports.heapBase());
  const put = (a: Int32Array | Float64Array) => {
    const at = lay.take(a.byteLength);
    inputs.push([a, at]);
    return at;
  };
  // each individual's signature is read by the numpy kernel alone
  const sigOf = put(plan.rng === "numpy" ? plan.sigOf : empty);
  const sigRegStart = put(plan.sigRegStart), sigRegs = put(plan.sigRegs);
  const scoredN = put(plan.scoredN), scoredC = put(plan.scoredC), xlx = put(plan.xlx);
  // The sampler per signature: [size, first cell, lo, 0] of its table, then the cells' prob and alias.
  const sampler = put(tb ? perSignature(tb) : empty);
  const cells = put(tb?.prob ?? new Float64Array(0)), alias = put(tb?.alias ?? empty);
  const X = lay.take(nSig * LANES * 4), acc = lay.take(K * LANES * 4), tot = lay.take(LANES * 4);
  const mt = lay.take(2 * MT_WORDS * 4), res = lay.take(out.byteLength);

  const mem = exports.memory;
  lay.fit(mem);
  const buf = mem.buffer;
  for (const [a, at] of inputs) {
    new Uint8Array(buf, at, a.byteLength).set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }
  exports.worlds(
    plan.rng === "numpy" ? 1 : 0,
    plan.n,
    nSig,
    K,
    seed >>> 0,
    w0,
    w1,
    sigOf,
    sigRegStart,
    sigRegs,
    scoredN,
    scoredC,
    xlx,
    sampler,
    cells,
    alias,
    bern?.qn ?? 0,
    bern?.px ?? 0,
    bern?.flip ? 1 : 0,
    X,
    acc,
    tot,
    mt,
    res,
  );
  out.set(new Float64Array(mem.buffer, res, out.length));
  return out;
}
