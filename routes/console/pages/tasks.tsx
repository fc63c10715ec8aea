/**
 * The tasks: the task documents in a table (filtered by status and component), a form to create one,
 * "Mark done" on each, and a task's own page (`/console/tasks/{name}`, where the spatial review goes).
 * Everything goes through services/tasks, as the JSON API does; the create form is checked by the same
 * schema as `POST /api/tasks/documents`.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  DataTable,
  errorsByField,
  Field,
  type FormState,
  linkColumn,
  Message,
  PageHead,
  Panel,
  PostForm,
  render,
  SelectField,
  Status,
  Submit,
  Value,
  When,
} from "../shared/components.tsx";
import { taskHref } from "./review_parts.tsx";
import { formFields, pendingFormFor } from "../shared/session.ts";
import * as tasks from "../../../services/tasks/task_documents.ts";
import { TaskCreate } from "../../tasks/tasks.schemas.ts";
import { zodToDetail } from "../../http/error_answers.ts";
import { ConflictError, DisabledError } from "../../../core/errors.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";

/** The filter as the page's query gives it (an empty choice is no filter). */
function filterOf(c: Context<ConsoleEnv>): tasks.TaskFilter {
  const status = c.req.query("status") || undefined;
  const component = c.req.query("component") || undefined;
  return { status, component };
}

const distinct = (values: unknown[]) =>
  [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))].sort();

interface TasksView {
  session: ConsoleSession;
  docs: tasks.TaskDocument[];
  all: tasks.TaskDocument[];
  filter: tasks.TaskFilter;
  back: string;
  create: FormState;
  notice?: { kind: "success" | "info" | "error"; text: string };
}

/** "Mark done" on a task (its list and its review page): the task page `back` is where it returns to. */
export const MarkDone = (
  { session, name, back, small }: { session: ConsoleSession; name: string; back: string; small?: boolean },
) => (
  <PostForm action={`${taskHref(name)}/done`} session={session} class="inline-form" hidden={{ back }}>
    <button type="submit" class={small ? "btn btn-secondary btn-small" : "btn btn-secondary"}>
      Mark done
    </button>
  </PostForm>
);

/** One filter of the list: a field's values as they occur in the task documents, or any. */
const Filter = (
  { name, values, value }: { name: "status" | "component"; values: string[]; value?: string },
) => (
  <SelectField
    label={`Show ${name}`}
    name={name}
    id={`filter-${name}`}
    value={value}
    options={[["", `Any ${name}`], ...values.map((s): [string, string] => [s, s])]}
  />
);

const TaskTable = ({ v }: { v: TasksView }) => (
  <DataTable
    label="Task documents"
    rows={v.docs}
    columns={[
      linkColumn<tasks.TaskDocument>("Data collection", (d) =>
        taskHref(d.data_collection_name), (d) =>
        d.data_collection_name),
      {
        head: "Database",
        cell: (d) =>
          d.database_name,
      },
      { head: "Status", cell: (d) => <Status status={d.status} /> },
      { head: "Component", class: "nowrap", cell: (d) => <Value v={d.component} /> },
      { head: "Pipeline", class: "nowrap", cell: (d) => <Value v={d.pipeline_name} /> },
      { head: "Started (UTC)", class: "nowrap", cell: (d) => <When iso={d.started_at} utc={false} /> },
      { head: "Ended (UTC)", class: "nowrap", cell: (d) => <When iso={d.ended_at} utc={false} /> },
      {
        head: <span class="visually-hidden">Actions</span>,
        cell: (d) =>
          d.status === "done"
            ? <span class="muted">Done</span>
            : <MarkDone session={v.session} name={d.data_collection_name} back={v.back} small />,
      },
    ]}
  />
);

const TasksPage = (v: TasksView) => {
  const statuses = distinct(v.all.map((d) => d.status));
  const components = distinct(v.all.map((d) => d.component));
  const filtered = v.filter.status !== undefined || v.filter.component !== undefined;
  return (
    <Layout title="Tasks" active="tasks" session={v.session}>
      <PageHead
        title="Tasks"
        lede={<>{v.docs.length} of {v.all.length} task document{v.all.length === 1 ? "" : "s"}</>}
      />
      {v.notice && <Message {...v.notice} />}
      <form method="get" action="/console/tasks" class="filters" aria-label="Filter tasks">
        <Filter name="status" values={statuses} value={v.filter.status} />
        <Filter name="component" values={components} value={v.filter.component} />
        <Submit label="Filter" kind="secondary">
          {filtered && <a href="/console/tasks">Clear filter</a>}
        </Submit>
      </form>
      {v.docs.length ? <TaskTable v={v} /> : (
        <p class="panel empty">
          {filtered ? "No task document matches this filter." : "No task documents yet: create one below."}
        </p>
      )}
      <Panel id="create-task" title="Create a task">
        <PostForm action="/console/tasks" session={v.session} state={v.create}>
          <div class="form-grid">
            <Field label="Database" name="database_name" state={v.create} required />
            <Field label="Data collection name" name="data_collection_name" state={v.create} required />
            <Field label="Component" name="component" state={v.create} placeholder="spatial-fairness" />
            <Field label="Pipeline name" name="pipeline_name" state={v.create} />
            <Field label="Initial status" name="status" state={v.create} value="pending" />
          </div>
          <Submit label="Create task" />
        </PostForm>
      </Panel>
    </Layout>
  );
};

/** The page's own address with its filter, to come back to after "Mark done". */
function backOf(filter: tasks.TaskFilter): string {
  const q = new URLSearchParams();
  if (filter.status) q.set("status", filter.status);
  if (filter.component) q.set("component", filter.component);
  const s = q.toString();
  return `/console/tasks${s ? `?${s}` : ""}`;
}

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

export async function createTask(c: Context<ConsoleEnv>) {
  const { _csrf: _, ...values } = await formFields(c);
  const input: Record<string, string> = {};
  for (const k of ["database_name", "data_collection_name", "status", "component", "pipeline_name"]) {
    const v = values[k]?.trim();
    if (v) input[k] = v;
  }
  const parsed = TaskCreate.safeParse(input);
  if (!parsed.success) {
    const errors = errorsByField(zodToDetail(parsed.error, "body", input));
    for (const k of Object.keys(errors)) errors[k] = friendly(k, errors[k]);
    return showTasks(c, { values, errors }, undefined, 422);
  }
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
  await tasks.setTaskStatus(c.var.deps, name, "done");
  const to = back?.startsWith("/console/tasks") && !back.startsWith("//") ? back : "/console/tasks";
  return c.redirect(`${to}${to.includes("?") ? "&" : "?"}marked=${encodeURIComponent(name)}`, 303);
}
