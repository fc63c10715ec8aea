/**
 * Membership signatures: individuals with the same set of regions are exchangeable under the null of
 * the Monte Carlo test, so a world needs one Binomial draw per signature instead of one Bernoulli per
 * individual (docs/spatial-fairness.md "Random streams"). Disjoint regions give at most
 * R + 1 signatures, whatever N is.
 */

import { localAlloc } from "../memory.ts";
import { csrLayout } from "./csr.ts";

/** Signatures of n individuals and, per signature, the regions it belongs to (CSR, ascending). */
export interface Signatures {
  /** Individuals per signature. */
  count: Int32Array;
  /** Signature of each individual (scope position). */
  of: Int32Array;
  /** Signature s lies in regions `regs[regStart[s] .. regStart[s+1])`. */
  regStart: Int32Array;
  regs: Int32Array;
}

/**
 * Partition refinement of n individuals by the member lists of regions [from, to): each region splits
 * every class it touches into the part inside and the part outside, the part inside taking a new class id
 * unless it is the whole class. So every id is a live class, at most n of them, and the tables stay n long
 * (a few hundred KB in cache, where one id per membership took tables the size of all member lists).
 */
export function refineClasses(
  n: number,
  members: Int32Array[],
  from = 0,
  to = members.length,
): Classes {
  const cls = new Int32Array(n);
  const size = new Int32Array(n + 1), inside = new Int32Array(n + 1), split = new Int32Array(n + 1);
  const stamp = new Int32Array(n + 1).fill(-1);
  size[0] = n;
  let next = 1;
  for (let r = from; r < to; r++) {
    const m = members[r];
    for (let j = 0; j < m.length; j++) {
      const c = cls[m[j]];
      if (stamp[c] !== r) (stamp[c] = r, inside[c] = 0);
      inside[c]++;
    }
    for (let j = 0; j < m.length; j++) {
      const i = m[j], c = cls[i];
      if (inside[c] === size[c]) continue; // the region holds the whole class: it stays as it is
      if (inside[c] > 0) (split[c] = next, size[next++] = 0, inside[c] = -1); // the class's first member moved
      const d = split[c];
      cls[i] = d, size[c]--, size[d]++;
    }
  }
  return { cls, next };
}

/** Each individual's class (ids below `next`) after refining by some regions. */
export interface Classes {
  cls: Int32Array;
  next: number;
}

/**
 * The signatures from the classes of consecutive runs of the regions (refineClasses of each): two
 * individuals share a signature when they share a class in every run. Signature ids follow the first
 * individual (in scope order) that carries them, whatever the runs.
 */
export function joinClasses(n: number, runs: Classes[]): Pick<Signatures, "of" | "count"> {
  let cls = runs[0].cls, next = runs[0].next;
  for (const run of runs.slice(1)) {
    // a pair of classes as one number (below n·(n + 1) ≤ 2^53), numbered as first seen
    const ids = new Map<number, number>(), joined = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const key = cls[i] * run.next + run.cls[i];
      let id = ids.get(key);
      if (id === undefined) ids.set(key, id = ids.size);
      joined[i] = id;
    }
    (cls = joined, next = ids.size);
  }
  const remap = new Int32Array(next).fill(-1), of = new Int32Array(n);
  let nSig = 0;
  for (let i = 0; i < n; i++) {
    const c = cls[i];
    if (remap[c] < 0) remap[c] = nSig++;
    of[i] = remap[c];
  }
  const count = new Int32Array(nSig);
  for (let i = 0; i < n; i++) count[of[i]]++;
  return { of, count };
}

/** Per signature, how many of regions [from, to) hold it (a region counts once per signature). */
export function countSignatureRegions(
  of: Int32Array,
  nSig: number,
  members: Int32Array[],
  from: number,
  to: number,
) {
  const last = new Int32Array(nSig).fill(-1), size = new Int32Array(nSig);
  for (let r = from; r < to; r++) {
    const m = members[r];
    for (let j = 0; j < m.length; j++) {
      const s = of[m[j]];
      if (last[s] !== r) (last[s] = r, size[s]++);
    }
  }
  return size;
}

/** Writes regions [from, to) into the lists of the signatures they hold, signature s's at `next[s]` on. */
export function fillSignatureRegions(
  of: Int32Array,
  members: Int32Array[],
  from: number,
  to: number,
  regs: Int32Array,
  next: Int32Array,
): void {
  const last = new Int32Array(next.length).fill(-1);
  for (let r = from; r < to; r++) {
    const m = members[r];
    for (let j = 0; j < m.length; j++) {
      const s = of[m[j]];
      if (last[s] !== r) (last[s] = r, regs[next[s]++] = r);
    }
  }
}

/**
 * Signatures by partition refinement over the regions' member lists, O(n + Σ|region|), exact (no
 * hashing). Signature ids follow the first individual (in scope order) that carries them. In one thread;
 * workers/spatial.ts makes the same over several workers, each over a run of the regions.
 */
export function signatures(n: number, members: Int32Array[]): Signatures {
  const { of, count } = joinClasses(n, [refineClasses(n, members)]);
  const R = members.length, nSig = count.length;
  const { all: regs, start: regStart, next } = csrLayout(
    [countSignatureRegions(of, nSig, members, 0, R)],
    localAlloc,
  );
  fillSignatureRegions(of, members, 0, R, regs, next[0]);
  return { count, of, regStart, regs };
}
