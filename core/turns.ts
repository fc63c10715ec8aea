/**
 * Long loops on the event loop, cut into turns: work over n items in slices, letting timers and I/O (a
 * health probe, another request) run between slices, so no request holds the loop for long.
 */

/** A turn of the event loop: timers and I/O run before the caller goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Items per slice: a slice of simple per-item work stays within a few milliseconds. */
export const SLICE = 20_000;

/** `Array.from({ length: n }, fn)`, built a slice at a time with a turn of the event loop between slices. */
export async function mapInTurns<T>(n: number, fn: (i: number) => T, slice = SLICE): Promise<T[]> {
  const out = new Array<T>(n);
  for (let from = 0; from < n; from += slice) {
    if (from) await nextTurn();
    const to = Math.min(n, from + slice);
    for (let i = from; i < to; i++) out[i] = fn(i);
  }
  return out;
}

/** `text.split(sep)` (sep not empty), a slice of pieces at a time with a turn of the event loop between slices. */
export async function splitInTurns(text: string, sep: string, slice = SLICE): Promise<string[]> {
  const out: string[] = [];
  for (let at = 0;;) {
    for (let k = 0; k < slice; k++) {
      const end = text.indexOf(sep, at);
      if (end < 0) {
        out.push(text.slice(at));
        return out;
      }
      out.push(text.slice(at, end));
      at = end + sep.length;
    }
    await nextTurn();
  }
}
