/**
 * What exchange moves (exact_exchange.ts) look up: the pair moves between neighbouring units, each with
 * its effect on the regions, hashed so that the pair whose effect is another's minus one region is found
 * in one step. Three groupings keep effects comparable:
 * - cells: the units of one region set (its label-0 and label-1 members), since a change of +1 on a cell's
 *   regions is made by either one more flip of its label-0 unit or one fewer of its label-1 unit;
 * - classes: regions with the same members (a scan design's nested squares often coincide), which no move
 *   can tell apart, so an effect names each class once, by its first region;
 * - pairs: two cells a and b that are neighbours (unit_neighbours.ts), whose effect is +1 on the classes of
 *   a only and -1 on those of b only.
 */
import { Rng } from "../../random.ts";
import type { MitigationProblem } from "./problem.ts";

export interface ExchangeIndex {
  /** Per unit its cell; per cell its label-0 (up) and label-1 (down) unit, -1 where it has none. */
  cellOf: Int32Array;
  cellUp: Int32Array;
  cellDown: Int32Array;
  /** Per region the first region of its class; per class (by that region) its regions. */
  classOf: Int32Array;
  members: Int32Array[];
  /** Pair p: cells pairA[p], pairB[p]; effect: effect[effStart[p] .. effStart[p+1]), ±(class + 1), ascending class. */
  pairA: Int32Array;
  pairB: Int32Array;
  effStart: Int32Array;
  effect: Int32Array;
  /** Per pair its effect's hash; per class its random weights (the hash is their signed sum, mod 2^32). */
  h1: Uint32Array;
  h2: Uint32Array;
  r1: Uint32Array;
  r2: Uint32Array;
  /** Pairs by hash (open addressing from h1 & (size - 1), -1 where empty); pairs holding each class, shortest effect first. */
  table: Int32Array;
  byClass: Int32Array[];
}

/** Calls `f` with each pair whose effect hashes to (a, b) (each taken mod 2^32). */
export function pairsHashed(ix: ExchangeIndex, a: number, b: number, f: (p: number) => void): void {
  const mask = ix.table.length - 1;
  (a >>>= 0, b >>>= 0);
  for (let i = a & mask; ix.table[i] >= 0; i = (i + 1) & mask) {
    const p = ix.table[i];
    if (ix.h1[p] === a && ix.h2[p] === b) f(p);
  }
}

/** Units grouped by region set: same regions, opposite labels. */
function cellsOf(pr: MitigationProblem) {
  const U = pr.unitSign.length, cellOf = new Int32Array(U), up: number[] = [], down: number[] = [];
  const seen = new Map<string, number>();
  for (let u = 0; u < U; u++) {
    const key = pr.unitRegions.subarray(pr.unitRegStart[u], pr.unitRegStart[u + 1]).join(",");
    let c = seen.get(key);
    if (c === undefined) (c = up.length, seen.set(key, c), up.push(-1), down.push(-1));
    cellOf[u] = c;
    pr.unitSign[u] > 0 ? (up[c] = u) : (down[c] = u);
  }
  return { cellOf, cellUp: Int32Array.from(up), cellDown: Int32Array.from(down) };
}

/** Regions grouped by the cells they hold (equal size and equal 64-bit hash of their cells). */
function classesOf(pr: MitigationProblem, cellUp: Int32Array, cellDown: Int32Array, rng: Rng) {
  const R = pr.n.length, a = new Uint32Array(R), b = new Uint32Array(R);
  for (let c = 0; c < cellUp.length; c++) {
    const u = cellUp[c] >= 0 ? cellUp[c] : cellDown[c], w1 = rng.uint32(), w2 = rng.uint32();
    for (let r = pr.unitRegStart[u]; r < pr.unitRegStart[u + 1]; r++) {
      const i = pr.unitRegions[r];
      (a[i] = (a[i] + w1) >>> 0, b[i] = (b[i] + w2) >>> 0);
    }
  }
  const classOf = new Int32Array(R), first = new Map<string, number>(), lists: number[][] = [];
  for (let i = 0; i < R; i++) {
    const key = `${a[i]}:${b[i]}:${pr.n[i]}`, c = first.get(key) ?? i;
    (first.set(key, c), classOf[i] = c);
    (lists[c] ??= []).push(i);
  }
  const members = Array.from({ length: R }, (_, i) => Int32Array.from(lists[i] ?? []));
  return { classOf, members };
}

/** A pair's effect: its classes, +(class + 1) where it adds one and -(class + 1) where it takes one. */
interface PairEffects {
  pairA: number[];
  pairB: number[];
  effStart: number[];
  effect: number[];
}

/** Each pair of neighbouring cells once (by `near`), with its effect, the classes in ascending order. */
function pairEffects(
  pr: MitigationProblem,
  near: Int32Array[],
  { cellOf, cellUp, cellDown }: ReturnType<typeof cellsOf>,
  classOf: Int32Array,
): PairEffects {
  const R = pr.n.length, C = cellUp.length, mark = new Int32Array(R), seen = new Set<number>();
  const rep = (c: number) => (cellUp[c] >= 0 ? cellUp[c] : cellDown[c]);
  // f(its class, the region) for every region of unit w's set
  const each = (w: number, f: (c: number, i: number) => void) => {
    for (let r = pr.unitRegStart[w]; r < pr.unitRegStart[w + 1]; r++) {
      f(classOf[pr.unitRegions[r]], pr.unitRegions[r]);
    }
  };
  const out: PairEffects = { pairA: [], pairB: [], effStart: [0], effect: [] }, entries: number[] = [];
  for (let u = 0; u < near.length; u++) {
    for (const v of near[u]) {
      const a = Math.min(cellOf[u], cellOf[v]), b = Math.max(cellOf[u], cellOf[v]);
      if (a === b || seen.has(a * C + b)) continue;
      seen.add(a * C + b);
      const ua = rep(a), ub = rep(b);
      (each(ua, (c) => mark[c] += 1), each(ub, (c) => mark[c] -= 1));
      entries.length = 0;
      // a class of k regions was marked k times; its first region speaks for it, once
      const take = (c: number, i: number) =>
        mark[c] !== 0 && c === i && entries.push(mark[c] > 0 ? c + 1 : -(c + 1));
      (each(ua, take), each(ub, take));
      (each(ua, (c) => mark[c] = 0), each(ub, (c) => mark[c] = 0));
      entries.sort((x, y) => Math.abs(x) - Math.abs(y));
      (out.pairA.push(a),
        out.pairB.push(b),
        out.effect.push(...entries),
        out.effStart.push(out.effect.length));
    }
  }
  return out;
}

/**
 * Each pair's hash (the signed sum of its classes' random weights, mod 2^32) into an open-addressing table,
 * and the pairs holding each class, shortest effect first.
 */
function hashed(R: number, effStart: Int32Array, effect: Int32Array, r1: Uint32Array, r2: Uint32Array) {
  const P = effStart.length - 1, h1 = new Uint32Array(P), h2 = new Uint32Array(P), count = new Int32Array(R);
  const table = new Int32Array(2 ** Math.ceil(Math.log2(2 * P + 2))).fill(-1), mask = table.length - 1;
  for (let p = 0; p < P; p++) {
    let x = 0, y = 0;
    for (let e = effStart[p]; e < effStart[p + 1]; e++) {
      const c = Math.abs(effect[e]) - 1, s = Math.sign(effect[e]);
      (x = (x + s * r1[c]) >>> 0, y = (y + s * r2[c]) >>> 0, count[c]++);
    }
    (h1[p] = x, h2[p] = y);
    let i = x & mask;
    while (table[i] >= 0) i = (i + 1) & mask;
    table[i] = p;
  }
  const byClass = Array.from({ length: R }, (_, c) => new Int32Array(count[c]));
  count.fill(0);
  for (let p = 0; p < P; p++) {
    for (let e = effStart[p]; e < effStart[p + 1]; e++) {
      const c = Math.abs(effect[e]) - 1;
      byClass[c][count[c]++] = p;
    }
  }
  // shortest effects first: the three-pair search (exact_exchange.ts) reads only a prefix
  const size = (p: number) => effStart[p + 1] - effStart[p];
  for (const list of byClass) list.sort((a, b) => size(a) - size(b) || a - b);
  return { h1, h2, table, byClass };
}

/** The exchange index of `pr` over the neighbour lists `near` (unit_neighbours.ts). */
export function exchangeIndex(pr: MitigationProblem, near: Int32Array[]): ExchangeIndex {
  const R = pr.n.length, rng = new Rng(0x5eed);
  const cells = cellsOf(pr), { cellOf, cellUp, cellDown } = cells;
  const { classOf, members } = classesOf(pr, cellUp, cellDown, rng);
  const r1 = Uint32Array.from({ length: R }, () => rng.uint32()),
    r2 = Uint32Array.from({ length: R }, () => rng.uint32());
  const pe = pairEffects(pr, near, cells, classOf);
  const effStart = Int32Array.from(pe.effStart), effect = Int32Array.from(pe.effect);
  const { h1, h2, table, byClass } = hashed(R, effStart, effect, r1, r2);
  return {
    cellOf,
    cellUp,
    cellDown,
    classOf,
    members,
    pairA: Int32Array.from(pe.pairA),
    pairB: Int32Array.from(pe.pairB),
    effStart,
    effect,
    h1,
    h2,
    r1,
    r2,
    table,
    byClass,
  };
}
