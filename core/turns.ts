/**
 * Long loops on the event loop, cut into turns: work over n items in slices, letting timers and I/O (a
 * health probe, another request) run between slices, so no request holds the loop for long.
 */

/** A turn of the event loop: timers and I/O run before the caller goes on. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Items per slice: a slice of simple per-item work stays within a few milliseconds. */
export const SLICE = 20_000;

/**
 * Milliseconds of work between two turns where work is cut by the clock: a turn costs a timer's delay, so
 * work in small pieces takes several before it yields, yet never holds the loop much longer than this.
 */
export const TURN_MS = 8;

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
