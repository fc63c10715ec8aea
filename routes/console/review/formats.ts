/**
 * Numbers as a reviewer reads them: rates in %, differences in percentage points, statistics with four
 * significant digits, counts with thousands separators.
 */

const grouped = new Intl.NumberFormat("en-US");

/** An integer with thousands separators (50,000). */
export const int = (
  n: number | null | undefined,
) => (n === null || n === undefined ? "—" : grouped.format(n));

/** A number with `digits` significant digits, without trailing zeros' noise (0.001397, 12.5). */
export function sig(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e-4 && a < 1e6) return String(Number(x.toPrecision(digits)));
  return x.toExponential(digits - 1).replace(/\.?0+e/, "e");
}

/** A statistic in [0, 1] with four decimals (0.0014); a positive value too small for them as "< 0.0001". */
export function fixed4(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  if (x > 0 && x < 0.00005) return "< 0.0001";
  return x.toFixed(4);
}

/** A share as a percentage with one decimal (61.6 %). */
export const pct = (x: number | null | undefined) =>
  x === null || x === undefined || !Number.isFinite(x) ? "—" : `${(x * 100).toFixed(1)} %`;

/** A difference of shares in signed percentage points (+4.2 pp, −31.0 pp). */
export function pp(x: number | null | undefined): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—";
  const v = x * 100;
  const text = Math.abs(v).toFixed(1);
  if (text === "0.0") return "0.0 pp";
  return `${v > 0 ? "+" : "−"}${text} pp`;
}

/** A p-value: three significant digits. */
export const pval = (x: number | null | undefined) => sig(x, 3);

/** A fraction as the percentage a form shows (0.2 → "20"), clean of binary noise. */
export const asPercent = (x: number) => String(Number((x * 100).toPrecision(12)));

/** A summary's figure when it is a number, else null (a summary is free-form JSON). */
export const num = (v: unknown) => (typeof v === "number" ? v : null);
