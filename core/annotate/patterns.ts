/** Value patterns shared by semantic typing and the PII scan: one source each, whole-value and in-text. */

const EMAIL = String.raw`[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}`;
const EMAIL_WHOLE = new RegExp(`^${EMAIL}$`);
/** E-mail addresses inside a text (global: use with matchAll). */
export const EMAIL_IN_TEXT = new RegExp(`(?<![\\w.%+-])${EMAIL}(?![\\w-])`, "g");

/** A whole value that is an e-mail address. */
export const isEmail = (s: string): boolean => EMAIL_WHOLE.test(s.trim());

/** A whole value that is an absolute http(s)/ftp URL, or a `www.` address. */
export function isUrl(s: string): boolean {
  const t = s.trim();
  if (/\s/.test(t)) return false;
  if (/^(?:https?|ftp):\/\//i.test(t)) return URL.canParse(t);
  return /^www\.[^.]+\.[^.]/i.test(t);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A whole value that is a UUID. */
export const isUuid = (s: string): boolean => UUID.test(s.trim());

const BOOLEAN_WORDS = /^(?:true|false|yes|no)$/i;
/** A boolean, or a string that says true/false/yes/no. */
export const isBooleanLike = (v: unknown): boolean =>
  typeof v === "boolean" || (typeof v === "string" && BOOLEAN_WORDS.test(v.trim()));

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DAY_MONTH_YEAR = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/;

const validDay = (y: number, m: number, d: number) =>
  m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();

/**
 * The date format a string is written in: ISO 8601 `date` or `date-time`, or `day/month/year`
 * (with `/` or `.`; month/day/year reads the same way when the day is 12 or less); null otherwise.
 * Calendar-checked: 2023-02-29 is not a date.
 */
export function dateFormat(s: string): "date" | "date-time" | "day/month/year" | null {
  const t = s.trim();
  const iso = ISO.exec(t);
  if (iso) {
    const [, y, m, d, hh, mm, ss] = iso;
    if (!validDay(+y, +m, +d)) return null;
    if (hh === undefined) return "date";
    return +hh <= 23 && +mm <= 59 && (ss === undefined || +ss <= 60) ? "date-time" : null;
  }
  const dmy = DAY_MONTH_YEAR.exec(t);
  if (dmy) {
    const [, a, b, y] = dmy;
    return validDay(+y, +b, +a) || validDay(+y, +a, +b) ? "day/month/year" : null;
  }
  return null;
}

const GEOJSON_TYPES = new Set([
  "Point",
  "MultiPoint",
  "LineString",
  "MultiLineString",
  "Polygon",
  "MultiPolygon",
]);
/** A GeoJSON geometry object (`{type: "Point", coordinates: [...]}` and its kin). */
export function isGeoJson(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const g = v as { type?: unknown; coordinates?: unknown };
  return typeof g.type === "string" && GEOJSON_TYPES.has(g.type) && Array.isArray(g.coordinates);
}
