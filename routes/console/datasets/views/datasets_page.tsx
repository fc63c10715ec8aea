/** The datasets page: the registry as a list and the upload form. */
import { Layout } from "../../shared/layout.tsx";
import {
  CheckField,
  DataTable,
  Field,
  type FormState,
  linkColumn,
  Message,
  PageHead,
  Panel,
  PostForm,
  Submit,
  When,
} from "../../shared/components.tsx";
import { datasetHref } from "../../shared/hrefs.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";

const DEFAULT_DB = "uploads";
const ACCEPT = ".csv,.tsv,.tab,.ndjson,.jsonl,.json,text/csv,text/tab-separated-values,application/json";

export interface DatasetsView {
  session: ConsoleSession;
  datasets: DatasetRecord[];
  upload: FormState;
  limitMb: number;
  notice?: { kind: "success" | "info" | "error"; text: string };
}

export const DatasetsPage = (v: DatasetsView) => (
  <Layout title="Datasets" active="datasets" session={v.session}>
    <PageHead title="Datasets" lede={<>{v.datasets.length} dataset{v.datasets.length === 1 ? "" : "s"}</>} />
    {v.notice && <Message {...v.notice} />}
    {v.datasets.length
      ? (
        <DataTable
          label="Datasets"
          rows={v.datasets}
          columns={[
            linkColumn<DatasetRecord>("Name", (d) => datasetHref(d.dataset_name), (d) =>
              d.dataset_name),
            {
              head: "Database",
              cell: (d) =>
                d.database,
            },
            {
              head: "Rows",
              num: true,
              cell: (d) => (d.importing ? <span class="muted">importing</span> : d.rows.toLocaleString("en")),
            },
            {
              head: "Columns",
              num: true,
              cell: (d) =>
                d.columns.length,
            },
            { head: "Updated", class: "nowrap", cell: (d) => <When iso={d.updated_at} /> },
          ]}
        />
      )
      : <p class="panel empty">No datasets yet: upload one below.</p>}
    <Panel id="upload" title="Upload a dataset">
      {/* the token comes first: the server checks it before it reads the file */}
      <PostForm
        action="/console/datasets"
        session={v.session}
        needs="steward"
        state={v.upload}
        enctype="multipart/form-data"
      >
        <div class="form-grid">
          <Field
            label="Database"
            name="database"
            state={v.upload}
            value={DEFAULT_DB}
            required
            hint="Where the rows are stored."
          />
          <Field
            label="Dataset name"
            name="name"
            state={v.upload}
            hint="Empty: the file's name without its extension."
          />
        </div>
        <CheckField
          label="Replace the rows of a dataset with this name"
          name="replace"
          state={v.upload}
          hint="Unticked, the file's rows are added to it."
        />
        <Field
          label="File"
          name="file"
          type="file"
          state={v.upload}
          accept={ACCEPT}
          required
          hint={`CSV, TSV, NDJSON or a JSON array of objects (.csv, .tsv, .ndjson, .jsonl, .json), at most ${v.limitMb} MB.`}
        />
        <Submit label="Upload" />
      </PostForm>
    </Panel>
  </Layout>
);
