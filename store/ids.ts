/**
 * Document ids: 24-hex ObjectId strings (seconds, five random bytes of this process, a counter), so ids
 * match MongoDB's own and sort by creation. bson's ObjectId starts its counter at a random value and
 * wraps it at 2^24, which can put a later id before an earlier one within the same second; here the
 * counter restarts only when the second changes, and a full counter borrows the next second instead.
 */
const COUNTER_SPAN = 0x1000000;

/** An id maker over a clock; `counterSpan` is 2^24 in ObjectIds (smaller only in tests). */
export function idSource(now: () => number = Date.now, counterSpan = COUNTER_SPAN): () => string {
  const random = crypto.getRandomValues(new Uint8Array(5));
  const processHex = Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
  let second = 0;
  let counter = 0;
  return () => {
    const t = Math.floor(now() / 1000);
    if (t > second) [second, counter] = [t, 0];
    else if (++counter === counterSpan) [second, counter] = [second + 1, 0];
    return second.toString(16).padStart(8, "0") + processHex + counter.toString(16).padStart(6, "0");
  };
}

/** A fresh id that sorts after every id this process made before it. */
export const newId: () => string = idSource();
