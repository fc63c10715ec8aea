// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * The spatial review of a task (`/console/tasks/{name}`): the settings form, the open run's result, the
 * task's earlier runs, the write-back panel and "Mark done"; or, for an empty collection, a word on it;
 * then the task's history.
 */
import { can } from "../../shared/role_notice.tsx";
import { Layout } from "../../shared/layout.tsx";
import { BackLink, Facts, Message, Status, Value, When } from "../../shared/components.tsx";
import { assetUrl } from "../../shared/assets.ts";
import { MarkDone } from "../../shared/mark_done.tsx";
import { int } from "../formats.ts";
import { type ReviewView, who } from "./review_view.ts";
import { SettingsForm } from "./settings_form.tsx";
import { CancelButton, CancelRunForm } from "./cancel_run.tsx";
import { ResultPanel, WritebackPanel } from "./result_panels.tsx";
import { type RunListEntry, RunsList } from "./runs_list.tsx";
import { HistoryPanel } from "./task_history.tsx";
import { RUNS_KEPT } from "../../../../services/spatial/runs.ts";
import type { TaskDocument } from "../../../../services/tasks/task_documents.ts";

/** The fields of a task document shown in its details, in this order; any others follow. */
const FIELD_ORDER = ["data_collection_name", "database_name", "status", "component", "pipeline_name"];

const TaskFacts = ({ task }: { task: TaskDocument }) => {
  const keys = [
    ...FIELD_ORDER.filter((k) => k in task),
    ...Object.keys(task).filter((k) => !FIELD_ORDER.includes(k)).sort(),
  ];
  return (
    <details class="panel task-doc">
      <summary>Task document</summary>
      <Facts
        items={keys.map((k) => [
          k,
          k === "status"
            ? <Status status={String(task[k])} />
            : k.endsWith("_at")
            ? <When iso={task[k]} />
            : <Value v={task[k]} />,
        ])}
      />
    </details>
  );
};

export const ReviewPage = (v: ReviewView) => {
  const empty = v.columns.sampled === 0;
  const by = (r: RunListEntry) => ({ ...r, requested_by: who(v.session, r.requested_by) });
  return (
    <Layout title={v.run ? `${v.name}: run` : v.name} active="tasks" session={v.session}>
      <link rel="stylesheet" href={assetUrl("review.css")} />
      <script type="module" src={assetUrl("review.js")}></script>
      <BackLink href="/console/tasks" class="crumbs">All tasks</BackLink>
      <div class="page-head">
        <div class="title-line">
          <h1>{v.name}</h1>
          <Status status={String(v.task.status)} />
        </div>
        {v.task.status !== "done" && <MarkDone session={v.session} name={v.name} back={v.here} />}
      </div>
      <p class="muted task-line">
        Spatial review of collection <code>{v.task.data_collection_name}</code> in database{" "}
        <code>{v.task.database_name}</code>
        {v.rows !== null && <>{" · "}{int(v.rows)} records</>}
        {v.task.pipeline_name && <>{" · "}pipeline {String(v.task.pipeline_name)}</>}
      </p>
      {v.notices.map((n) => <Message {...n} />)}
      {empty
        ? (
          <>
            <Message
              kind="info"
              text={
                <>
                  The collection <code>{v.task.data_collection_name}</code> of database{" "}
                  <code>{v.task.database_name}</code>{" "}
                  has no documents yet: there is nothing to review. Import them on the{" "}
                  <a href="/console/datasets">Datasets</a> page (same database and name).
                </>
              }
            />
            <TaskFacts task={v.task} />
          </>
        )
        : (
          <div class="review">
            <section class="panel review-side" aria-labelledby="settings-title">
              <SettingsForm
                task={v.name}
                session={v.session}
                columns={v.columns}
                state={v.form}
                runId={v.run?.run_id}
                rows={v.rows}
              >
                <CancelButton />
              </SettingsForm>
              {can(v.session, "reviewer") && (
                <CancelRunForm task={v.name} runId={v.nextRunId} session={v.session} />
              )}
            </section>
            <div class="review-main">
              <ResultPanel v={v} />
              {v.run && v.run.run.kind !== "audit" && <WritebackPanel v={v} run={v.run} />}
              {v.run?.run.kind === "audit" && <Message kind="error" text={v.writeback.errors?.form} />}
              {v.run?.run.kind === "audit" && (
                <p class="hint">
                  Write-back takes a mitigation's predictions: run “Relabel” or “Thresholds” to get one.
                </p>
              )}
              <RunsList task={v.name} runs={v.runs.map(by)} current={v.run?.run_id} kept={RUNS_KEPT} />
              <TaskFacts task={v.task} />
            </div>
          </div>
        )}
      <HistoryPanel task={v.name} h={v.history} steward={can(v.session, "steward")} />
    </Layout>
  );
};
