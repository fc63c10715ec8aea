/**
 * Columns that grow as a collection is read: a typed buffer that doubles (`Growable`), and the region id
 * lists flattened into runs (`RegionIds`), so a large read neither boxes its values nor copies them at
 * every doubling. IndividualsBuilder (load.ts) fills them.
 */
import type { Alloc } from "../memory.ts";

/** A column that doubles its typed buffer as it fills (no per-value boxing, one copy per doubling). */
export class Growable<A extends Float64Array | Int32Array = Float64Array> {
  n = 0;
  constructor(public buf: A) {}
  push(v: number) {
    if (this.n === this.buf.length) this.reserve(1);
    this.buf[this.n++] = v;
  }
  /** Room for `k` more values (doubling, so pushing N values copies O(N) in all). */
  reserve(k: number) {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const next = new (this.buf.constructor as new (n: number) => A)(size);
    next.set(this.buf);
    this.buf = next;
  }
}

export const column = () => new Growable(new Float64Array(1024));

/**
 * Region ids flattened as they are read: runs of ids (a column page's list column kept as it came, ids
 * pushed one list at a time into a growing run), joined once at the end, so a large read neither copies
 * its ids at every doubling nor holds twice their memory. 32-bit until one id does not fit, then doubles.
 */
export class RegionIds {
  private runs: (Int32Array | Uint16Array | Float64Array)[] = [];
  private before = 0;
  private open: Growable<Int32Array> | Growable<Float64Array> = new Growable(new Int32Array(1024));
  wide = false;

  /** Ids read so far. */
  get total(): number {
    return this.before + this.open.n;
  }

  /** Appends a list of 32-bit non-negative ids (while not wide). */
  pushInt32(list: readonly number[]): void {
    const ids = this.open as Growable<Int32Array>;
    ids.reserve(list.length);
    for (let j = 0; j < list.length; j++) ids.buf[ids.n++] = list[j];
  }

  /** Appends a list of non-negative integer ids, going wide at the first that is not 32-bit. */
  pushAny(list: readonly number[]): void {
    for (const r of list) {
      if (!this.wide && (r | 0) !== r) {
        const wide = new Growable(Float64Array.from(this.open.buf));
        wide.n = this.open.n;
        this.open = wide;
        this.wide = true;
      }
      this.open.push(r);
    }
  }

  /** Appends a run of ids as it is (a column page's). */
  append(items: Int32Array | Uint16Array): void {
    if (this.open.n) {
      this.runs.push(this.open.buf.subarray(0, this.open.n));
      this.before += this.open.n;
      this.open = this.wide ? new Growable(new Float64Array(1024)) : new Growable(new Int32Array(1024));
    }
    this.runs.push(items);
    this.before += items.length;
  }

  /** Every id in one array, its memory from `alloc`. */
  joined(alloc: Alloc): Int32Array | Float64Array {
    const total = this.total;
    const out = this.wide ? new Float64Array(alloc(8 * total)) : new Int32Array(alloc(4 * total));
    let at = 0;
    for (const run of [...this.runs, this.open.buf.subarray(0, this.open.n)]) {
      // a loop: set() from another element type converts element by element, about ten times slower
      if (run.constructor === out.constructor) out.set(run, at);
      else for (let k = 0; k < run.length; k++) out[at + k] = run[k];
      at += run.length;
    }
    return out;
  }
}
