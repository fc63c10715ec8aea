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
    laidOut.add(memory);
    const need = this.top - memory.buffer.byteLength;
    if (need > 0) memory.grow(Math.ceil(need / 65536));
  }
}

/** The modules' memories this isolate has laid arrays out in. */
const laidOut = new Set<WebAssembly.Memory>();

/**
 * Bytes of WebAssembly memory this isolate holds. A module's memory never shrinks, so after one big
 * fit a worker keeps it: the pool retires a worker holding much (workers/protocol.ts).
 */
export function wasmBytes(): number {
  let bytes = 0;
  for (const m of laidOut) bytes += m.buffer.byteLength;
  return bytes;
}

/** Up to a multiple of 16, in arithmetic (a bitwise mask would wrap offsets past 2 GB). */
const align = (x: number) => Math.ceil(x / 16) * 16;
