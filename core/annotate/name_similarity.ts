/** Names of columns and data-model properties as words, and how alike two names are. */

/**
 * Common abbreviations in column headers, expanded before names are compared. Small on purpose: each
 * entry is a word a data steward would read the same way in any dataset.
 */
const ABBREVIATIONS = new Map<string, string[]>(Object.entries({
  temp: ["temperature"],
  hum: ["humidity"],
  rh: ["relative", "humidity"],
  lat: ["latitude"],
  lon: ["longitude"],
  lng: ["longitude"],
  long: ["longitude"],
  addr: ["address"],
  tel: ["telephone"],
  phone: ["telephone"],
  mail: ["email"],
  dob: ["birth", "date"],
  desc: ["description"],
  precip: ["precipitation"],
  pres: ["pressure"],
  press: ["pressure"],
  zip: ["postal", "code"],
  postcode: ["postal", "code"],
  firstname: ["given", "name"],
  first: ["given"],
  lastname: ["family", "name"],
  surname: ["family", "name"],
  last: ["family"],
})); // a Map: a word of a column name (`constructor`) must not find an Object.prototype member

/** Words of a name: camelCase, snake_case, kebab-case, dots and spaces split; lower case. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The words of a name with common abbreviations written out (`temp_c` → temperature, c). */
export function expandedTokens(name: string): string[] {
  return nameTokens(name).flatMap((t) => ABBREVIATIONS.get(t) ?? [t]);
}

/** A name reduced for comparison: expanded words run together (`Date_Observed` → `dateobserved`). */
export function normalizedName(name: string): string {
  return expandedTokens(name).join("");
}

/** Sørensen–Dice coefficient over the character bigrams of two strings (1 when equal). */
export function diceSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const g = a.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const g = b.slice(i, i + 2);
    const left = grams.get(g) ?? 0;
    if (left > 0) {
      shared++;
      grams.set(g, left - 1);
    }
  }
  return (2 * shared) / (a.length - 1 + b.length - 1);
}

/** Jaccard index of the expanded word sets of two names (`station_id` ~ `id`: 1 of 2 words → 0.5). */
export function wordSimilarity(a: string, b: string): number {
  const x = new Set(expandedTokens(a));
  const y = new Set(expandedTokens(b));
  const shared = [...x].filter((w) => y.has(w)).length;
  const union = x.size + y.size - shared;
  return union === 0 ? 0 : shared / union;
}

const LATITUDE = new Set(["lat", "latitude"]);
const LONGITUDE = new Set(["lon", "lng", "long", "longitude"]);
const IDENTIFIER = new Set(["id", "uuid", "guid", "key"]);

/** What a column's name says it holds, when it says so: the hints semantic typing weighs. */
export function nameHint(name: string): "latitude" | "longitude" | "identifier" | null {
  const tokens = nameTokens(name);
  if (tokens.some((t) => LATITUDE.has(t))) return "latitude";
  if (tokens.some((t) => LONGITUDE.has(t))) return "longitude";
  if (tokens.length && IDENTIFIER.has(tokens[tokens.length - 1])) return "identifier";
  return null;
}
