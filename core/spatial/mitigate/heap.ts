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
