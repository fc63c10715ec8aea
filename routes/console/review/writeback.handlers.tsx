/**
 * A mitigation's write-back: the new field's name (from the run page's form), a confirmation page with
 * what will be written, then the write (the JSON API's writeBack), back on the run page.
 */
import { deciderOf } from "../../http/decider.ts";
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { type FormState, render } from "../shared/components.tsx";
import { formFields } from "../shared/session.ts";
import { runHref } from "./hrefs.ts";
import { asSentence, invalidItems } from "./refusals.ts";
import { showReview } from "./show_review.tsx";
import { ConfirmPage } from "./views/confirm_writeback_page.tsx";
import { WritebackRequest } from "../../mitigation/mitigation.schemas.ts";
import { planWriteback, writeBack, type WritebackPlan } from "../../../services/mitigation/writeback.ts";
import { getRun } from "../../../services/spatial/runs.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";
import { ConflictError, InvalidInputError } from "../../../core/errors.ts";

/** Where a write-back's refusal is shown: a field's message next to "New field", anything else above it. */
function writebackErrors(e: unknown): { state: FormState["errors"]; status: 409 | 422 } | null {
  const items = invalidItems(e);
  if (items) return { state: { new_field: items.map((i) => i.msg).join("; ") }, status: 422 };
  if (e instanceof ConflictError) {
    return { state: { form: asSentence(e.message) }, status: 409 };
  }
  return null;
}

/** Shows the run page with the write-back form's values and errors. */
function writebackRefused(c: Context<ConsoleEnv>, name: string, runId: string, field: string, e: unknown) {
  const refused = writebackErrors(e);
  if (!refused) throw e;
  return showReview(c, name, {
    runId,
    writeback: { values: { new_field: field }, errors: refused.state },
    status: refused.status,
  });
}

export async function writebackConfirm(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "", runId = c.req.param("run") ?? "";
  const field = (c.req.query("new_field") ?? "").trim();
  const checked = WritebackRequest.safeParse({ new_field: field, run_id: runId });
  if (!checked.success) {
    const msg = field === ""
      ? "Enter the name of the new field."
      : "Use letters, digits and _ (at most 128), not starting with a digit.";
    return writebackRefused(c, name, runId, field, new InvalidInputError(msg, ["body", "new_field"]));
  }
  assertTasksEnabled(c.var.deps.config);
  let plan: WritebackPlan;
  try {
    plan = await planWriteback(c.var.deps, { collectionName: name, newField: field, runId });
  } catch (e) {
    return writebackRefused(c, name, runId, field, e);
  }
  const { run } = await getRun(c.var.deps, name, runId, false);
  return render(
    c,
    <ConfirmPage session={c.var.session} name={name} run={runId} field={field} plan={plan} kind={run.kind} />,
  );
}

export async function writebackSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "", runId = c.req.param("run") ?? "";
  const field = ((await formFields(c)).new_field ?? "").trim();
  const checked = WritebackRequest.safeParse({ new_field: field, run_id: runId });
  if (!checked.success) {
    const e = new InvalidInputError("Use letters, digits and _, not starting with a digit.", [
      "body",
      "new_field",
    ]);
    return writebackRefused(c, name, runId, field, e);
  }
  assertTasksEnabled(c.var.deps.config);
  try {
    await writeBack(c.var.deps, {
      collectionName: name,
      newField: field,
      who: deciderOf(c),
      runId,
    });
  } catch (e) {
    return writebackRefused(c, name, runId, field, e);
  }
  return c.redirect(`${runHref(name, runId)}?written=${encodeURIComponent(field)}#writeback`, 303);
}
