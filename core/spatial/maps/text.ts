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

/**
 * JSON that is safe inside a <script> element: no `</script>`, `<!--`, or JS-breaking line separators; and
 * nothing beyond Latin-1 (see latin1Html), written as `\uXXXX`, which JSON reads back as the same text.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u0100-\uffff]/g,
    (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"),
  );
}

/**
 * HTML text (not a script's or a style's) with every character beyond Latin-1 as a numeric reference
 * (`−` → `&#x2212;`; the page reads the same). V8 keeps a string with any such character at two bytes a
 * character, all of them: a map page of 0.9 MB took 1.8 MB in memory, in the run's chunks and to encode.
 */
export function latin1Html(html: string): string {
  return html.replace(/[\u0100-\u{10ffff}]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16)};`);
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
