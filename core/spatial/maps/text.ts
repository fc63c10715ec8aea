/**
 * Escaping for the two languages the maps are written in: HTML/XML text and JSON inside a <script>.
 * Field names, titles and ids come from users, so every string that reaches a page passes through here.
 */

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for HTML or SVG content and attribute values, so user text can never become markup. */
export function escapeXml(text: unknown): string {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}

/** JSON that is safe inside a <script> element: no `</script>`, `<!--`, or JS-breaking line separators. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/** A number for display: fixed digits, or an en dash when there is no value (an empty region's rate). */
export function fmt(x: number | null | undefined, digits: number): string {
  return x === null || x === undefined || !Number.isFinite(x) ? "–" : x.toFixed(digits);
}

/** A count with thousands separators ("206,418"), the same on every server locale. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** Why a map leaves regions out (a map draws at most MAX_MAP_REGIONS, features.ts). */
export function cappedNote(capped: number, total: number): string {
  return `${count(total - capped)} of ${
    count(total)
  } regions drawn: the significant ones first, then those ` +
    `farthest from the overall rate (every region is in the table).`;
}
