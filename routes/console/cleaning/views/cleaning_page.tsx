/** The cleaning page: the start form (dataset and method, then step 2) and the jobs, new, running and done. */
import { Layout } from "../../shared/layout.tsx";
import {
  DataTable,
  linkColumn,
  Message,
  PageHead,
  Panel,
  SelectField,
  Submit,
  When,
} from "../../shared/components.tsx";
import { AnalysisAssets, count } from "../../shared/analysis_parts.tsx";
import { methodGroups, methodKey } from "../cleaning_params.ts";
import type { Chosen, StartState } from "../start_request.ts";
import { CLEANING, jobHref } from "../hrefs.ts";
import { Badge, kindOf, reviewState } from "./job_parts.tsx";
import { StartForm } from "./start_form.tsx";
import type { JobRecord } from "../../../../services/cleaning/job_queue.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { MethodSpec } from "../../../../core/cleaning/methods.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

export interface ListView {
  session: ConsoleSession;
  jobs: JobRecord[];
  datasets: DatasetRecord[];
  chosen: Chosen;
  dataset: DatasetRecord | null;
  spec: MethodSpec | undefined;
  start: StartState;
  runnerOff: boolean;
  notice?: { kind: "info" | "error"; text: string };
}

const JobTable = ({ label, list, progress }: { label: string; list: JobRecord[]; progress?: boolean }) => (
  <DataTable
    label={label}
    rows={list}
    columns={[
      linkColumn<JobRecord>("Job", (j) => jobHref(j.job_id), (j) => `${j.method} on ${j.data}`),
      { head: "Kind", class: "nowrap", cell: (j) => kindOf(j) },
      { head: "Columns", class: "cell", cell: (j) => j.columns.join(", ") },
      { head: "Created (UTC)", class: "nowrap", cell: (j) => <When iso={j.created_at} utc={false} /> },
      progress
        ? {
          head: "Progress",
          class: "nowrap",
          cell: (j) => (j.status === "queued" ? "queued" : `${Math.round(j.progress * 100)} %`),
        }
        : { head: "Status", class: "nowrap", cell: (j) => <Badge text={j.status} kind={j.status} /> },
      !progress && {
        head: "Review",
        class: "nowrap",
        cell: (j) => {
          const review = reviewState(j);
          return <Badge text={review.label} kind={review.badge} />;
        },
      },
    ]}
  />
);

const JobSection = (
  { id, title, list, empty, progress }: {
    id: string;
    title: string;
    list: JobRecord[];
    empty: string;
    progress?: boolean;
  },
) => (
  <section aria-labelledby={id}>
    <h2 id={id}>
      {title} <span class="muted">({list.length})</span>
    </h2>
    {list.length
      ? <JobTable label={`${title} jobs`} list={list} progress={progress} />
      : <p class="panel empty">{empty}</p>}
  </section>
);

export const CleaningPage = (v: ListView) => {
  const by = (...s: JobRecord["status"][]) => v.jobs.filter((j) => s.includes(j.status));
  const groups = methodGroups();
  const chosenMethod = v.chosen.method ?? "";
  return (
    <Layout title="Cleaning" active="cleaning" session={v.session}>
      <AnalysisAssets />
      <PageHead
        title="Cleaning"
        lede="Imputation and anomaly detection, approved by a person before anything is written."
      />
      {v.notice && <Message {...v.notice} />}
      {v.runnerOff && (
        <Message
          kind="info"
          text={
            <>
              The job runner is off on this server (<code>JOBS_ENABLED=false</code>): jobs started here wait
              until another Tessera instance runs them.
            </>
          }
        />
      )}
      <Panel id="start" title="Start a job">
        <form method="get" action={CLEANING} class="filters" aria-label="Choose a dataset and a method">
          <SelectField
            label="Dataset"
            name="data"
            id="choose-data"
            value={v.chosen.data ?? ""}
            state={{ errors: v.start.errors?.data ? { data: v.start.errors.data } : undefined }}
            options={[
              ["", v.datasets.length ? "Choose a dataset" : "No datasets yet"],
              ...v.datasets.map((
                d,
              ): [string, string] => [d.dataset_name, `${d.dataset_name} (${count(d.rows)} rows)`]),
            ]}
          />
          <div class="field">
            <label for="choose-method">Method</label>
            <select id="choose-method" name="using">
              <option value="" selected={!chosenMethod}>Choose a method</option>
              {groups.map((g) => (
                <optgroup label={g.label}>
                  {g.methods.map((m) => (
                    <option value={methodKey(m)} selected={methodKey(m) === chosenMethod}>
                      {`${m.name}: ${m.summary}`}
                    </option>
                  ))}
                </optgroup>
              ))}
            </select>
          </div>
          <Submit label="Choose" kind="secondary" />
        </form>
        {v.dataset && v.spec
          ? <StartForm session={v.session} state={v.start} dataset={v.dataset} spec={v.spec} />
          : (
            <p class="muted">
              Choose a dataset and a method, then set the columns and parameters. The job runs in the
              background; you approve its results before anything is written into the dataset.
            </p>
          )}
      </Panel>
      <JobSection
        id="jobs-new"
        title="New"
        list={by("queued")}
        empty="No job is waiting to start."
        progress
      />
      <JobSection
        id="jobs-running"
        title="Running"
        list={by("running")}
        empty="No job is running."
        progress
      />
      <JobSection
        id="jobs-done"
        title="Done"
        list={by("succeeded", "failed", "rejected")}
        empty="No job has finished yet."
      />
    </Layout>
  );
};
