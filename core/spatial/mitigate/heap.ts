/**
 * A binary min-heap of small integer ids keyed by a number each, on typed arrays: the greedy of the
 * exact solver pops and re-keys millions of times, and an object per entry would cost more than the
 * arithmetic around it.
 */
export class KeyedHeap {
  private ids: Int32Array;
  private keys: Float64Array;
  size = 0;

  /** A heap for at most `capacity` entries. */
  constructor(capacity: number) {
    this.ids = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
  }

  /** Adds `id` with `key`. */
  push(id: number, key: number): void {
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent] <= key) break;
      this.ids[i] = this.ids[parent], this.keys[i] = this.keys[parent];
      i = parent;
    }
    this.ids[i] = id, this.keys[i] = key;
  }

  /** The smallest key (Infinity when empty). */
  topKey(): number {
    return this.size ? this.keys[0] : Infinity;
  }

  /** The id of the smallest key (-1 when empty). */
  topId(): number {
    return this.size ? this.ids[0] : -1;
  }

  /** Gives the top entry a new key (or removes it when `key` is Infinity) and restores the order. */
  replaceTop(key: number): void {
    if (key === Infinity) {
      this.size--;
      if (this.size === 0) return;
      key = this.keys[this.size];
      this.ids[0] = this.ids[this.size];
    }
    const id = this.ids[0], n = this.size;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && this.keys[c + 1] < this.keys[c]) c++;
      if (this.keys[c] >= key) break;
      this.ids[i] = this.ids[c], this.keys[i] = this.keys[c];
      i = c;
    }
    this.ids[i] = id, this.keys[i] = key;
  }
}

/**
 * A binary min-heap over ids 0..n-1 (each present at most once) whose keys can change anywhere:
 * the warm-started exact solver re-keys the group it just moved, wherever it sits.
 */
export class IndexedHeap {
  private ids: Int32Array;
  private pos: Int32Array;
  private keys: Float64Array;
  size = 0;

  /** A heap of every id 0..n-1 with its key (Infinity keys sit at the bottom). */
  constructor(keys: Float64Array) {
    const n = keys.length;
    this.keys = keys.slice();
    this.ids = new Int32Array(n);
    this.pos = new Int32Array(n);
    for (let i = 0; i < n; i++) this.ids[i] = this.pos[i] = i; // plain loops: TypedArray.from(iterable) is slow
    this.size = n;
    for (let i = (n >> 1) - 1; i >= 0; i--) this.down(i);
  }

  /** The smallest key (Infinity when every key is). */
  topKey(): number {
    return this.size ? this.keys[this.ids[0]] : Infinity;
  }

  /** The id with the smallest key. */
  topId(): number {
    return this.ids[0];
  }

  /** Sets the key of `id` and restores the order. */
  set(id: number, key: number): void {
    const old = this.keys[id];
    this.keys[id] = key;
    if (key < old) this.up(this.pos[id]);
    else this.down(this.pos[id]);
  }

  private swap(i: number, j: number): void {
    const a = this.ids[i], b = this.ids[j];
    (this.ids[i] = b, this.ids[j] = a, this.pos[b] = i, this.pos[a] = j);
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[this.ids[parent]] <= this.keys[this.ids[i]]) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    for (;;) {
      let c = 2 * i + 1;
      if (c >= this.size) return;
      if (c + 1 < this.size && this.keys[this.ids[c + 1]] < this.keys[this.ids[c]]) c++;
      if (this.keys[this.ids[c]] >= this.keys[this.ids[i]]) return;
      this.swap(i, c);
      i = c;
    }
  }
}
