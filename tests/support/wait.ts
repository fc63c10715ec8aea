/** Waiting in tests for something another task or process does. */

/**
 * Polls `check` every `everyMs` until it returns a truthy value, and returns that value; after `ms`
 * it fails naming `what`.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  { ms = 5_000, everyMs = 10 }: { ms?: number; everyMs?: number } = {},
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
