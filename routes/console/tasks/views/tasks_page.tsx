/** The tasks page: the task documents in a table, filtered by status and component, and the create form. */
import { Layout } from "../../shared/layout.tsx";
import {
  DataTable,
  Field,
  type FormState,
  linkColumn,
  Message,
  PageHead,
  Panel,
  PostForm,
  SelectField,
  Status,
  Submit,
  Value,
  When,
} from "../../shared/components.tsx";
import { taskHref } from "../../shared/hrefs.ts";
import { MarkDone } from "../../shared/mark_done.tsx";
import type { TaskDocument, TaskFilter } from "../../../../services/tasks/task_documents.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

const distinct = (values: unknown[]) =>
  [...new Set(values.filter((v): v is string => typeof v === "string" && v !== ""))].sort();

export interface TasksView {
  session: ConsoleSession;
  docs: TaskDocument[];
  all: TaskDocument[];
  filter: TaskFilter;
  back: string;
  create: FormState;
  notice?: { kind: "success" | "info" | "error"; text: string };
}

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
      linkColumn<TaskDocument>("Data collection", (d) =>
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

export const TasksPage = (v: TasksView) => {
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
        <PostForm action="/console/tasks" session={v.session} needs="steward" state={v.create}>
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
