/** Reading untyped text cells as JSON values, and naming the type of a JSON value. */

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A CSV cell as the value a user meant: empty → null, true/false → boolean, a number → number.
 * Numbers with a leading zero ("007", a postcode) stay text so nothing is lost.
 */
export function inferCell(cell: string): string | number | boolean | null {
  const s = cell.trim();
  if (s === "") return null;
  const lower = s.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  if (NUMBER.test(s) && !/^[+-]?0\d/.test(s)) {
    const n = Number(s);
    if (Number.isFinite(n)) return n;
  }
  return cell;
}

export type ValueType = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";

/** The JSON type of a value, with integers told apart from other numbers. */
export function valueType(v: unknown): ValueType {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return "boolean";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  if (typeof v === "string") return "string";
  return Array.isArray(v) ? "array" : "object";
}

/** The one type that holds every non-null value seen (integer widens to number, anything else mixed). */
export function widen(a: ValueType | "mixed", b: ValueType): ValueType | "mixed" {
  if (b === "null" || a === b) return a;
  if (a === "null") return b;
  if ((a === "integer" && b === "number") || (a === "number" && b === "integer")) return "number";
  return "mixed";
}
