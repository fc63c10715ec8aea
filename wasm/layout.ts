/**
 * Where a loader puts its arrays in a module's linear memory: a bump allocation above the module's
 * static data, 16-byte aligned (SIMD loads), and the memory grown to hold the lot before it is used.
 */

/** Bump allocation from `base` up, each block 16-byte aligned. */
export class Layout {
  private top: number;
  constructor(base: number) {
    this.top = align(base);
  }
  take(bytes: number): number {
    const at = this.top;
    this.top = align(at + bytes);
    return at;
  }
  /** Grows `memory` (whole 64 KiB pages) until everything taken so far fits; views made before are stale. */
  fit(memory: WebAssembly.Memory): void {
    const need = this.top - memory.buffer.byteLength;
    if (need > 0) memory.grow(Math.ceil(need / 65536));
  }
}

const align = (x: number) => (x + 15) & ~15;
