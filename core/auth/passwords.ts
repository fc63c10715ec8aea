/**
 * Secret comparison that leaks neither where two secrets differ nor how long the stored one is, and a
 * lookup table of name → secret (users, clients) that takes as long for an unknown name as a known one.
 */

const encoder = new TextEncoder();

/** SHA-256 of a string: fixed 32 bytes, so the comparison below never depends on either length. */
async function digest(s: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(s)));
}

/** Compares two secrets in constant time: hashes both, then visits every byte whatever the outcome. */
export async function secretsEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([digest(given), digest(expected)]);
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Names and their secrets from configuration (`TESSERA_USERS`, `TESSERA_CLIENTS`). */
export class SecretTable {
  /** Compared against when the name is unknown, so an unknown name costs the same as a wrong secret. */
  private static readonly DECOY = crypto.randomUUID();

  constructor(private readonly entries: ReadonlyMap<string, string>) {}

  /** Whether this name exists (for refresh: a removed user loses their session). */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** True only for a known name with the right secret; always does one full comparison. */
  async check(name: string, secret: string): Promise<boolean> {
    const expected = this.entries.get(name);
    const same = await secretsEqual(secret, expected ?? SecretTable.DECOY);
    return expected !== undefined && same;
  }

  /** How many names there are (zero users means nobody can log in). */
  get size(): number {
    return this.entries.size;
  }
}
