/**
 * The start form as a run request: its fields (the columns' checkboxes repeated), the chosen dataset and
 * method, the parameters typed from the catalogue (cleaning_params.ts), and the run request's refusals
 * placed next to the field they concern.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import type { FormState } from "../shared/components.tsx";
import { methodOfKey, paramFields, paramInput, paramsFromForm } from "./cleaning_params.ts";
import { problemItems } from "../../http/error_answers.ts";
import type { MethodSpec } from "../../../core/cleaning/methods.ts";
import type { InvalidInputsError } from "../../../core/errors.ts";

/** The start form as sent: the single fields, and the columns ticked. */
export interface StartState extends FormState {
  columns?: string[];
}

/** The dataset and the method the page was asked for (query, kept form, or the start form). */
export interface Chosen {
  data?: string;
  method?: string;
}

/** A form's fields with every value of a repeated field (the columns' checkboxes). */
async function formAll(c: Context<ConsoleEnv>): Promise<Record<string, string[]>> {
  const body = await c.req.parseBody({ all: true });
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(body)) {
    out[k] = (Array.isArray(v) ? v : [v]).filter((x): x is string => typeof x === "string");
  }
  return out;
}

/** What the start form says: its state to show again, the choice, and the method's typed parameters. */
export type StartRequest =
  | {
    ok: true;
    state: StartState;
    chosen: Chosen;
    spec: MethodSpec;
    dateCol: string;
    params: Record<string, unknown>;
  }
  | { ok: false; state: StartState; chosen: Chosen };

/** Reads the start form: a known method, its parameters typed, at least one column. */
export async function readStartForm(c: Context<ConsoleEnv>): Promise<StartRequest> {
  const all = await formAll(c);
  const one = (k: string) => all[k]?.at(-1) ?? "";
  const { _csrf: _, columns: __, ...rest } = Object.fromEntries(
    Object.entries(all).map(([k, v]) => [k, v.at(-1) ?? ""]),
  );
  const values: Record<string, string> = rest;
  const columns = all.columns ?? [];
  const chosen = { data: one("data") || undefined, method: one("using") || undefined };
  const spec = methodOfKey(chosen.method);
  const state = (errors: Record<string, string>) => ({ values, columns, errors });
  if (!spec) return { ok: false, state: state({ form: "Choose a method of the catalogue." }), chosen };
  const fields = paramFields(spec);
  const { params, problems } = paramsFromForm(fields, values);
  if (!columns.length) problems.columns = "Choose at least one column.";
  if (Object.keys(problems).length) return { ok: false, state: state(problems), chosen };
  return {
    ok: true,
    state: state({}),
    chosen,
    spec,
    dateCol: one("date_col"),
    params: { ...params, columns },
  };
}

/** Where each located problem of a run request goes in the form. */
function fieldOfLoc(loc: (string | number)[]): string {
  const [, first, second] = loc;
  if (first === "params") {
    return second === "columns" || second === undefined ? "columns" : paramInput(String(second));
  }
  return String(first ?? "form");
}

/** The run request's refusals by form field, a column's named (`columns` is the list the form sent). */
export function startErrors(e: InvalidInputsError, columns: string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const item of problemItems(e.problems)) {
    const field = fieldOfLoc(item.loc);
    const which = item.loc[1] === "params" && item.loc[2] === "columns" && typeof item.loc[3] === "number"
      ? `${columns[item.loc[3]] ?? "a column"}: `
      : "";
    errors[field] ??= `${which}${item.msg[0].toUpperCase()}${item.msg.slice(1)}`;
  }
  return errors;
}
