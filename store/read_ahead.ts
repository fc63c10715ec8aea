/**
 * An async iterable consumed ahead of its reader: up to `depth` items are fetched while the reader works
 * on earlier ones, so I/O on another thread (a KV listing) overlaps the reader's CPU work (parsing). The
 * items, their order and the source's error are the source's; a reader that leaves early stops the
 * source and waits for its pending step, so nothing is left running.
 */
export async function* readAhead<T>(source: AsyncIterable<T>, depth: number): AsyncGenerator<T> {
  const buffer: T[] = [];
  const state = {
    finished: false,
    stopped: false,
    failure: null as { error: unknown } | null,
    /** Wakes the reader waiting for an item, and the filler waiting for room. */
    wake: null as (() => void) | null,
    room: null as (() => void) | null,
  };
  const wake = () => {
    state.wake?.();
    state.wake = null;
  };
  const room = () => {
    state.room?.();
    state.room = null;
  };
  const fill = (async () => {
    try {
      for await (const item of source) {
        buffer.push(item);
        wake();
        while (buffer.length >= depth && !state.stopped) await new Promise<void>((r) => (state.room = r));
        if (state.stopped) return;
      }
    } catch (error) {
      state.failure = { error };
    } finally {
      state.finished = true;
      wake();
    }
  })();
  try {
    for (;;) {
      if (buffer.length) {
        const item = buffer.shift()!;
        room();
        yield item;
      } else if (state.failure) throw state.failure.error;
      else if (state.finished) return;
      else await new Promise<void>((r) => (state.wake = r));
    }
  } finally {
    state.stopped = true;
    room();
    await fill;
  }
}
