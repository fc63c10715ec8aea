/**
 * The cleaning catalogue as form fields: each method's parameters read from its zod schema
 * (core/cleaning/methods.ts) with their kind, bounds and defaults, and a form's strings turned back into
 * the typed `params` a run request carries. The schema stays the one judge: a value is only converted
 * here (a number field's text to a number), never checked against its bounds; `resolveRun` does that.
 */
import type { z } from "zod";
import { METHODS, type MethodSpec } from "../../../core/cleaning/methods.ts";

/** How a parameter is asked for. */
export type ParamKind =
  | { type: "number"; integer: boolean; min?: number; max?: number }
  | { type: "boolean" }
  | { type: "choice"; options: (string | number)[] }
  | { type: "value" };

export interface ParamField {
  name: string;
  kind: ParamKind;
  /** The method's default; undefined when the parameter is optional without one. */
  default: unknown;
  optional: boolean;
}

/** The zod 4 definition fields this reads (`_zod.def`), without reaching into zod's internal types. */
interface Def {
  type: string;
  innerType?: z.ZodType;
  defaultValue?: unknown;
  options?: z.ZodType[];
  values?: unknown[];
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The parameters of a method as fields, in the schema's order, `columns` left out (the form asks for it apart). */
export function paramFields(spec: MethodSpec): ParamField[] {
  const out: ParamField[] = [];
  for (const [name, schema] of Object.entries(spec.params.shape as Record<string, z.ZodType>)) {
    if (name === "columns") continue;
    let cur = schema;
    let dflt: unknown = undefined;
    let optional = false;
    for (let d = defOf(cur); d.type === "default" || d.type === "optional"; d = defOf(cur)) {
      if (d.type === "default") dflt = d.defaultValue;
      else optional = true;
      cur = d.innerType!;
    }
    const d = defOf(cur);
    let kind: ParamKind = { type: "value" };
    if (d.type === "number") {
      const n = cur as unknown as { minValue: number | null; maxValue: number | null; isInt: boolean };
      const finite = (
        v: number | null,
      ) => (v !== null && Number.isFinite(v) && Math.abs(v) < 2 ** 53 ? v : undefined);
      kind = { type: "number", integer: n.isInt, min: finite(n.minValue), max: finite(n.maxValue) };
    } else if (d.type === "boolean") kind = { type: "boolean" };
    else if (d.type === "union" && d.options!.every((o) => defOf(o).type === "literal")) {
      kind = { type: "choice", options: d.options!.flatMap((o) => defOf(o).values as (string | number)[]) };
    }
    out.push({ name, kind, default: dflt, optional: optional && dflt === undefined });
  }
  return out;
}

/** A method's key in the form: `task/dtype/name`. */
export const methodKey = (m: Pick<MethodSpec, "task" | "dtype" | "name">) => `${m.task}/${m.dtype}/${m.name}`;

/** The catalogue method a form's key names, if any. */
export function methodOfKey(key: string | undefined): MethodSpec | undefined {
  return key ? METHODS.find((m) => methodKey(m) === key) : undefined;
}

/** The catalogue in groups (impute · tabular, ...), in its own order. */
export function methodGroups(): { label: string; methods: MethodSpec[] }[] {
  const groups = new Map<string, MethodSpec[]>();
  for (const m of METHODS) {
    const label = `${m.task === "impute" ? "Impute" : "Detect anomalies"} · ${
      m.dtype === "tabular" ? "table" : "time series"
    }`;
    groups.set(label, [...groups.get(label) ?? [], m]);
  }
  return [...groups].map(([label, methods]) => ({ label, methods }));
}

/** A parameter's form name. */
export const paramInput = (name: string) => `p_${name}`;

/** A default or a kept value as a form field's text. */
export function fieldText(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

/**
 * A form's parameter texts as the typed values of a run request: empty fields are left out (so the
 * method's default applies), a number field's text becomes a number, yes/no a boolean, a free value a
 * number or boolean when it reads as one. Text that is no number stays text, for the schema to refuse
 * (by its field), unless `problems` takes it first.
 */
export function paramsFromForm(
  fields: ParamField[],
  form: Record<string, string>,
): { params: Record<string, unknown>; problems: Record<string, string> } {
  const params: Record<string, unknown> = {};
  const problems: Record<string, string> = {};
  for (const f of fields) {
    const text = (form[paramInput(f.name)] ?? "").trim();
    if (text === "") continue;
    const num = Number(text);
    switch (f.kind.type) {
      case "number":
        if (!Number.isFinite(num)) {
          problems[paramInput(f.name)] = f.kind.integer ? "Enter a whole number." : "Enter a number.";
        } else params[f.name] = num;
        break;
      case "boolean":
        params[f.name] = text === "true";
        break;
      case "choice": {
        const hit = f.kind.options.find((o) => String(o) === text);
        params[f.name] = hit ?? text;
        break;
      }
      default:
        params[f.name] = text === "true"
          ? true
          : text === "false"
          ? false
          : Number.isFinite(num)
          ? num
          : text;
    }
  }
  return { params, problems };
}

/** A short description of a parameter's kind and default, for its hint. */
export function paramHint(f: ParamField): string {
  const parts: string[] = [];
  const k = f.kind;
  if (k.type === "number") {
    const what = k.integer ? "Whole number" : "Number";
    if (k.min !== undefined && k.max !== undefined) parts.push(`${what}, ${k.min} to ${k.max}.`);
    else if (k.min !== undefined) parts.push(`${what}, from ${k.min}.`);
    else parts.push(`${what}.`);
  } else if (k.type === "value") parts.push("A number or a text.");
  parts.push(f.default === undefined ? "Empty: not set." : `Default ${fieldText(f.default)}.`);
  return parts.join(" ");
}
