/**
 * Undoing a write-back from the task's history: a confirmation page (what the write-back wrote, what the
 * undo does), then the undo (the JSON API's undoWriteback), back on the task page with its counts. A
 * refusal (409: a later write-back of the field stands, or it is running; 404) is a message on the page.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { render } from "../shared/components.tsx";
import { taskHref } from "../shared/hrefs.ts";
import { deciderOf } from "../../http/decider.ts";
import { asSentence } from "./refusals.ts";
import { showReview } from "./show_review.tsx";
import { writebackDecision } from "./task_history.ts";
import { ConfirmUndoPage } from "./views/confirm_undo_page.tsx";
import { undoWriteback } from "../../../services/mitigation/writeback_undo.ts";
import { assertTasksEnabled } from "../../../services/tasks/task_documents.ts";
import { ConflictError, UnknownNameError } from "../../../core/errors.ts";

const enc = encodeURIComponent;

/** The task page, saying why nothing was undone. */
function refusedOnTask(c: Context<ConsoleEnv>, name: string, message: string, status: 404 | 409) {
  return showReview(c, name, { notices: [{ kind: "error", text: asSentence(message) }], status });
}

/** The confirmation page of the write-back `id`, with a refusal when one is given. */
async function showConfirm(c: Context<ConsoleEnv>, name: string, id: string, refused?: ConflictError) {
  const found = await writebackDecision(c.var.deps, name, id);
  if (!found) {
    // a write-back is logged once it is written: one still running, or unknown, has no page of its own
    return refusedOnTask(
      c,
      name,
      refused?.message ?? `no write-back '${id}' of this task is recorded`,
      refused ? 409 : 404,
    );
  }
  const view = { session: c.var.session, name, ...found, error: refused && asSentence(refused.message) };
  return render(c, <ConfirmUndoPage {...view} />, refused ? 409 : 200);
}

export function undoConfirm(c: Context<ConsoleEnv>) {
  assertTasksEnabled(c.var.deps.config);
  return showConfirm(c, c.req.param("name") ?? "", c.req.param("writeback") ?? "");
}

export async function undoSubmit(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "", id = c.req.param("writeback") ?? "";
  assertTasksEnabled(c.var.deps.config);
  try {
    await undoWriteback(c.var.deps, { collectionName: name, writebackId: id, who: deciderOf(c) });
  } catch (e) {
    if (e instanceof UnknownNameError) return refusedOnTask(c, name, e.message, 404);
    if (e instanceof ConflictError) return showConfirm(c, name, id, e);
    throw e;
  }
  return c.redirect(`${taskHref(name)}?undone=${enc(id)}#history`, 303);
}
