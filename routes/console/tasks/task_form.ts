/**
 * The tasks page's inputs: its filter (from the query) and the create form, checked by the same schema
 * as `POST /api/tasks/documents`, its refusals in a person's words.
 */
import type { Context } from "hono";
import type { z } from "zod";
import type { ConsoleEnv } from "../shared/env.ts";
import { errorsByField } from "../shared/components.tsx";
import type { TaskFilter } from "../../../services/tasks/task_documents.ts";
import { TaskCreate } from "../../tasks/tasks.schemas.ts";
import { zodToDetail } from "../../http/error_answers.ts";

/** The filter as the page's query gives it (an empty choice is no filter). */
export function filterOf(c: Context<ConsoleEnv>): TaskFilter {
  const status = c.req.query("status") || undefined;
  const component = c.req.query("component") || undefined;
  return { status, component };
}

/** The page's own address with its filter, to come back to after "Mark done". */
export function backOf(filter: TaskFilter): string {
  const q = new URLSearchParams();
  if (filter.status) q.set("status", filter.status);
  if (filter.component) q.set("component", filter.component);
  const s = q.toString();
  return `/console/tasks${s ? `?${s}` : ""}`;
}

/** Friendlier words for the schema's refusals of the create form. */
function friendly(field: string, msg: string): string {
  if (msg === "Field required") return "Enter a value.";
  if (msg.startsWith("String should match pattern")) {
    return field === "database_name"
      ? "Use 1 to 63 letters, digits, '_' or '-'."
      : "Start with a letter or digit, then up to 119 letters, digits, '_', '.' or '-'.";
  }
  if (msg.startsWith("String should have at least")) return "Enter a value.";
  return msg;
}

/** The create form's fields as the API's request body (empty fields left out), or the errors by field. */
export function parseTaskCreate(
  values: Record<string, string>,
): { ok: true; data: z.infer<typeof TaskCreate> } | { ok: false; errors: Record<string, string> } {
  const input: Record<string, string> = {};
  for (const k of ["database_name", "data_collection_name", "status", "component", "pipeline_name"]) {
    const v = values[k]?.trim();
    if (v) input[k] = v;
  }
  const parsed = TaskCreate.safeParse(input);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors = errorsByField(zodToDetail(parsed.error, "body", input));
  for (const k of Object.keys(errors)) errors[k] = friendly(k, errors[k]);
  return { ok: false, errors };
}
