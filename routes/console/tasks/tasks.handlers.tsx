/**
 * The tasks: the task documents in a table (filtered by status and component), a form to create one,
 * and "Mark done" on each. Everything goes through services/tasks, as the JSON API does; the create
 * form is checked by the same schema as `POST /api/tasks/documents` (task_form.ts).
 */
import { deciderOf } from "../../http/decider.ts";
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { type FormState, render } from "../shared/components.tsx";
import { formFields, pendingFormFor } from "../shared/session.ts";
import { TasksPage, type TasksView } from "./views/tasks_page.tsx";
import { backOf, filterOf, parseTaskCreate } from "./task_form.ts";
import * as tasks from "../../../services/tasks/task_documents.ts";
import { ConflictError, DisabledError } from "../../../core/errors.ts";

/** Renders the list with the given create-form state (and status). */
async function showTasks(
  c: Context<ConsoleEnv>,
  create: FormState,
  notice?: TasksView["notice"],
  status: 200 | 409 | 422 = 200,
) {
  const deps = c.var.deps;
  const filter = filterOf(c);
  let all: tasks.TaskDocument[] = [];
  let docs: tasks.TaskDocument[] = [];
  try {
    tasks.assertTasksEnabled(deps.config);
    all = await tasks.listTaskDocuments(deps, {});
    docs = filter.status || filter.component ? await tasks.listTaskDocuments(deps, filter) : all;
  } catch (e) {
    if (!(e instanceof DisabledError)) throw e;
    notice = { kind: "info", text: "Task documents are switched off on this server (TASKS_ENABLED=false)." };
  }
  const view = { session: c.var.session, docs, all, filter, back: backOf(filter), create, notice };
  return render(c, <TasksPage {...view} />, status);
}

export async function tasksPage(c: Context<ConsoleEnv>) {
  const pending = await pendingFormFor(c, "/console/tasks");
  if (pending) {
    return showTasks(c, { values: pending }, {
      kind: "info",
      text: "Your session had expired before this form was sent, so nothing was saved. " +
        "Check the values below and create the task again.",
    });
  }
  const created = c.req.query("created");
  const marked = c.req.query("marked");
  const notice = created
    ? { kind: "success" as const, text: `The task for '${created}' was created.` }
    : marked
    ? { kind: "success" as const, text: `'${marked}' is marked done.` }
    : undefined;
  return showTasks(c, {}, notice);
}

export async function createTask(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const parsed = parseTaskCreate(values);
  if (!parsed.ok) return showTasks(c, { values, errors: parsed.errors }, undefined, 422);
  try {
    tasks.assertTasksEnabled(c.var.deps.config);
    await tasks.createTaskDocument(c.var.deps, parsed.data);
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    const errors = {
      data_collection_name: `A task for '${parsed.data.data_collection_name}' exists already.`,
    };
    return showTasks(c, { values, errors }, undefined, 409);
  }
  return c.redirect(`/console/tasks?created=${encodeURIComponent(parsed.data.data_collection_name)}`, 303);
}

export async function markDone(c: Context<ConsoleEnv>) {
  const name = c.req.param("name") ?? "";
  const { back } = await formFields(c);
  tasks.assertTasksEnabled(c.var.deps.config);
  await tasks.setTaskStatus(c.var.deps, name, "done", deciderOf(c));
  const to = back?.startsWith("/console/tasks") && !back.startsWith("//") ? back : "/console/tasks";
  return c.redirect(`${to}${to.includes("?") ? "&" : "?"}marked=${encodeURIComponent(name)}`, 303);
}
