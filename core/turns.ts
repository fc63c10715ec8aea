/**
 * Long loops on the event loop, cut into turns: work over n items in slices, letting timers and I/O (a
 * health probe, another request) run between slices, so no request holds the loop for long.
 */

/** A turn of the event loop: timers and I/O run before the caller goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Items per slice: a slice of simple per-item work stays within a few milliseconds. */
export const SLICE = 20_000;

/**
 * Milliseconds of work between two turns where work is cut by the clock: a turn costs ~2 ms (a timer), so
 * work in small pieces takes several before it yields, yet never holds the loop much longer than this.
 */
export const TURN_MS = 8;

/**
 * The UTF-8 text of `bytes` split at its NUL bytes (`decode(bytes).split("\0")`), `chunk` bytes decoded at a
 * time with a turn of the event loop after every TURN_MS of them: text made in a worker comes over as bytes
 * moved, not a string copied at once, and is read here without holding the loop (a million ids: ~50 ms in
 * one go). UTF-8 never holds a zero byte but NUL's own, so chunks cut at one decode whole.
 */
export async function splitNulInTurns(bytes: Uint8Array, chunk = 1 << 18): Promise<string[]> {
  const decoder = new TextDecoder(), out: string[] = [];
  let since = performance.now();
  for (let at = 0; at <= bytes.length;) {
    let end = Math.min(bytes.length, at + chunk);
    if (end < bytes.length) {
      const nul = bytes.indexOf(0, end); // the chunk ends at a NUL, so no character is cut
      end = nul < 0 ? bytes.length : nul;
    }
    for (const piece of decoder.decode(bytes.subarray(at, end)).split("\u0000")) out.push(piece);
    at = end + 1;
    if (at <= bytes.length && performance.now() - since >= TURN_MS) {
      await nextTurn();
      since = performance.now();
    }
  }
  return out;
}

/**
 * Starts `main`, then runs `side` beside it, and settles only when both have: a request's work never
 * outlives it, and a failure of either is its failure (main's first), never an unhandled rejection.
 * Main starts first so that it has the first free worker.
 */
export async function beside<A, B>(side: () => Promise<A>, main: () => Promise<B>): Promise<[A, B]> {
  const running = main();
  running.catch(() => {}); // awaited below
  let sideWork: Promise<A>;
  try {
    sideWork = side();
  } catch (e) {
    await running.catch(() => {});
    throw e;
  }
  sideWork.catch(() => {}); // awaited below, after main
  let result: B;
  try {
    result = await running;
  } catch (e) {
    await sideWork.catch(() => {});
    throw e;
  }
  return [await sideWork, result];
}
