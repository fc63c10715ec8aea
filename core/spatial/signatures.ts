/**
 * Membership signatures: individuals with the same set of regions are exchangeable under the null of
 * the Monte Carlo test, so a world needs one Binomial draw per signature instead of one Bernoulli per
 * individual (docs/spatial-fairness.md "Random streams"). Disjoint regions give at most
 * R + 1 signatures, whatever N is.
 */

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
 * Partition refinement of n individuals by the regions' member lists: each region splits every class it
 * touches into the part inside and the part outside, the part inside taking a new class id unless it is
 * the whole class. So every id is a live class, at most n of them, and the tables stay n long (a few
 * hundred KB in cache, where one id per membership took tables the size of all member lists).
 */
function refine(n: number, members: Int32Array[]): { cls: Int32Array; next: number } {
  const cls = new Int32Array(n);
  const size = new Int32Array(n + 1), inside = new Int32Array(n + 1), split = new Int32Array(n + 1);
  const stamp = new Int32Array(n + 1).fill(-1);
  size[0] = n;
  let next = 1;
  for (let r = 0; r < members.length; r++) {
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

/**
 * Signatures by partition refinement over the regions' member lists, O(n + Σ|region|), exact (no
 * hashing). Signature ids follow the first individual (in scope order) that carries them.
 */
export function signatures(n: number, members: Int32Array[]): Signatures {
  const { cls, next } = refine(n, members);
  const remap = new Int32Array(next).fill(-1);
  const of = new Int32Array(n);
  let nSig = 0;
  for (let i = 0; i < n; i++) {
    const c = cls[i];
    if (remap[c] < 0) remap[c] = nSig++;
    of[i] = remap[c];
  }
  const count = new Int32Array(nSig);
  for (let i = 0; i < n; i++) count[of[i]]++;

  // Regions per signature: a region contributes once to each signature among its members.
  const last = new Int32Array(nSig).fill(-1);
  const regStart = new Int32Array(nSig + 1);
  for (let r = 0; r < members.length; r++) {
    const m = members[r];
    for (let j = 0; j < m.length; j++) {
      const s = of[m[j]];
      if (last[s] !== r) (last[s] = r, regStart[s + 1]++);
    }
  }
  for (let s = 0; s < nSig; s++) regStart[s + 1] += regStart[s];
  const regs = new Int32Array(regStart[nSig]);
  const fill = regStart.slice(0, nSig);
  last.fill(-1);
  for (let r = 0; r < members.length; r++) {
    const m = members[r];
    for (let j = 0; j < m.length; j++) {
      const s = of[m[j]];
      if (last[s] !== r) (last[s] = r, regs[fill[s]++] = r);
    }
  }
  return { count, of, regStart, regs };
}
