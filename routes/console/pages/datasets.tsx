// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/**
 * The datasets: the registry as a list, an upload form (CSV, TSV, NDJSON or a JSON array, streamed from
 * the request into the same import service as `POST /api/datasets/...`), and a dataset's page with its
 * columns, their inferred types and its first rows.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  BackLink,
  CheckField,
  DataTable,
  Facts,
  Field,
  type FormState,
  linkColumn,
  Message,
  PageHead,
  Panel,
  PostForm,
  render,
  Submit,
  Value,
  When,
} from "../shared/components.tsx";
import { checkCsrf, pendingFormFor } from "../shared/session.ts";
import { boundaryOf, type FormPart, multipartParts, partText, partTextChunks } from "../multipart.ts";
import { forbiddenPage } from "../shared/error_pages.tsx";
import { type DatasetRecord, listDatasets } from "../../../services/datasets/registry.ts";
import { importText } from "../../../services/datasets/import.ts";
import { previewDataset } from "../../../services/datasets/preview.ts";
import { importTargetProblems } from "../../../core/ingest/import_target.ts";
import { formatOfFileName } from "../../../core/ingest/records.ts";
import { BadRequestError, ConflictError, InvalidInputError } from "../../../core/errors.ts";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { own } from "../../../core/data_keys.ts";

const datasetHref = (name: string) => `/console/datasets/${encodeURIComponent(name)}`;
const DEFAULT_DB = "uploads";
const ACCEPT = ".csv,.tsv,.tab,.ndjson,.jsonl,.json,text/csv,text/tab-separated-values,application/json";

interface DatasetsView {
  session: ConsoleSession;
  datasets: DatasetRecord[];
  upload: FormState;
  limitMb: number;
  notice?: { kind: "success" | "info" | "error"; text: string };
}

const DatasetsPage = (v: DatasetsView) => (
  <Layout title="Datasets" active="datasets" session={v.session}>
    <PageHead title="Datasets" lede={<>{v.datasets.length} dataset{v.datasets.length === 1 ? "" : "s"}</>} />
    {v.notice && <Message {...v.notice} />}
    {v.datasets.length
      ? (
        <DataTable
          label="Datasets"
          rows={v.datasets}
          columns={[
            linkColumn<DatasetRecord>("Name", (d) => datasetHref(d.dataset_name), (d) => d.dataset_name),
            { head: "Database", cell: (d) => d.database },
            {
              head: "Rows",
              num: true,
              cell: (d) => (d.importing ? <span class="muted">importing</span> : d.rows.toLocaleString("en")),
            },
            { head: "Columns", num: true, cell: (d) => d.columns.length },
            { head: "Updated", class: "nowrap", cell: (d) => <When iso={d.updated_at} /> },
          ]}
        />
      )
      : <p class="panel empty">No datasets yet: upload one below.</p>}
    <Panel id="upload" title="Upload a dataset">
      {/* the token comes first: the server checks it before it reads the file */}
      <PostForm action="/console/datasets" session={v.session} state={v.upload} enctype="multipart/form-data">
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

async function showDatasets(
  c: Context<ConsoleEnv>,
  upload: FormState,
  notice?: DatasetsView["notice"],
  status: 200 | 400 | 409 | 422 = 200,
) {
  const { store, config } = c.var.deps;
  const datasets = await listDatasets(store, config.TESSERA_DB);
  const view = { session: c.var.session, datasets, upload, limitMb: config.IMPORT_BODY_LIMIT_MB, notice };
  return render(c, <DatasetsPage {...view} />, status);
}

export async function datasetsPage(c: Context<ConsoleEnv>) {
  const pending = await pendingFormFor(c, "/console/datasets");
  if (pending) {
    return showDatasets(c, { values: pending }, {
      kind: "info",
      text:
        "Your session had expired before the upload was sent, so nothing was imported. Choose the file again.",
    });
  }
  return showDatasets(c, {});
}

/** A dataset name from a file's name: its stem, with characters a name cannot hold replaced by '_'. */
export function nameFromFile(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? "";
  const stem = base.replace(/\.[^.]*$/, "").replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^[^A-Za-z0-9]+/, "");
  return stem.slice(0, 120);
}

/** Reads the rest of a form so the browser gets the answer after it has finished sending. */
async function drain(parts: AsyncGenerator<FormPart>): Promise<void> {
  try {
    for await (const _ of parts);
  } catch {
    // a malformed rest changes nothing: the answer is already decided
  }
}

/**
 * The upload: the form's fields come before the file (the browser sends them in the form's order), so
 * the CSRF token and the target's names are checked before the first byte of the file is read; the file
 * then streams from the request into the import.
 */
export async function uploadDataset(c: Context<ConsoleEnv>) {
  const boundary = boundaryOf(c.req.header("content-type"));
  if (!boundary) return forbiddenPage(c, "This form could not be accepted (unexpected encoding).");
  const parts = multipartParts(c.req.raw.body, boundary);
  const values: Record<string, string> = {};
  let file: FormPart | null = null;
  let csrf: string | undefined;
  // by hand, not `for await`: leaving that loop at the file would close the reader the file streams from
  for (let next = await parts.next(); !next.done; next = await parts.next()) {
    const part = next.value;
    if (part.filename !== null) {
      if (part.name === "file") {
        file = part;
        break;
      }
      continue; // an unknown file field: skipped
    }
    const text = await partText(part);
    if (part.name === "_csrf") csrf = text;
    else values[part.name] = text;
  }
  if (!checkCsrf(c, csrf)) {
    await drain(parts);
    return forbiddenPage(c, "This form has expired or did not come from this console.");
  }
  const { _csrf: _, ...shown } = values;
  const errors: Record<string, string> = {};
  const db = (values.database ?? "").trim();
  const filename = file?.filename ?? "";
  const name = (values.name ?? "").trim() || nameFromFile(filename);
  const format = filename ? formatOfFileName(filename) : null;
  if (!filename) errors.file = "Choose a file to upload.";
  else if (!format) errors.file = "Use a .csv, .tsv, .ndjson, .jsonl or .json file.";
  const problems = importTargetProblems({ db, collection: name }, c.var.deps.config.TESSERA_DB);
  const sentence = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}.`;
  if (!db) errors.database = "Enter a database name.";
  else if (problems.db) errors.database = sentence(problems.db);
  if (filename && !name) errors.name = "Enter a dataset name.";
  else if (name && problems.collection) {
    errors[values.name?.trim() ? "name" : "file"] = sentence(problems.collection);
  }
  if (Object.keys(errors).length || !file || !format) {
    await drain(parts);
    return showDatasets(c, { values: shown, errors }, undefined, 422);
  }
  try {
    const result = await importText(c.var.deps, {
      target: { db, collection: name },
      format,
      text: partTextChunks(file),
      replace: values.replace === "true",
    });
    await drain(parts);
    const q = `imported=${result.inserted}${result.replaced ? `&replaced=${result.replaced}` : ""}`;
    return c.redirect(`${datasetHref(name)}?${q}`, 303);
  } catch (e) {
    if (!(e instanceof BadRequestError || e instanceof ConflictError || e instanceof InvalidInputError)) {
      throw e;
    }
    await drain(parts);
    const status = e instanceof ConflictError ? 409 : e instanceof BadRequestError ? 400 : 422;
    return showDatasets(
      c,
      { values: shown, errors: { file: `${filename}: ${e.message}` } },
      undefined,
      status,
    );
  }
}

interface DatasetView {
  session: ConsoleSession;
  dataset: DatasetRecord;
  rows: Record<string, unknown>[];
  notice?: string;
}

const DatasetPage = ({ session, dataset, rows, notice }: DatasetView) => {
  const columns = dataset.columns;
  const numeric = (type: string) => type === "integer" || type === "number";
  return (
    <Layout title={dataset.dataset_name} active="datasets" session={session}>
      <BackLink href="/console/datasets">All datasets</BackLink>
      <h1>{dataset.dataset_name}</h1>
      <Message kind="success" text={notice} />
      <section class="panel" aria-label="About this dataset">
        <Facts
          items={[
            ["Database", dataset.database],
            ["Collection", dataset.collection],
            ["Rows", dataset.rows.toLocaleString("en")],
            ["Columns", columns.length],
            ["Updated", <When iso={dataset.updated_at} />],
          ]}
        />
      </section>
      <Panel id="actions" title="Annotate or delete">
        <p>
          <a href={`${datasetHref(dataset.dataset_name)}/annotation`}>
            Annotation: semantic types, profile, concept mapping, PII scan
          </a>
        </p>
        <PostForm action={`${datasetHref(dataset.dataset_name)}/delete`} session={session}>
          <button type="submit" class="btn btn-secondary">Delete dataset</button>
        </PostForm>
      </Panel>
      <h2 id="columns">Columns</h2>
      <DataTable
        label="Columns and their inferred types"
        compact
        rows={columns}
        columns={[
          { th: <th scope="col" class="num index">#</th>, class: "num index", cell: (_, i) => i + 1 },
          { head: "Column", rowHead: true, cell: (col) => col.name },
          { head: "Inferred type", cell: (col) => <span class="type">{col.type}</span> },
        ]}
      />
      <h2 id="preview">First rows</h2>
      <p class="muted">
        The first {rows.length} of {dataset.rows.toLocaleString("en")} rows, in the order they were imported.
      </p>
      <DataTable
        label="First rows"
        rows={rows}
        columns={columns.map((col) => ({
          head: col.name,
          num: numeric(col.type),
          class: numeric(col.type) ? "cell num" : "cell",
          cell: (r: Record<string, unknown>) => <Value v={own(r, col.name)} />,
        }))}
      />
    </Layout>
  );
};

export async function datasetPage(c: Context<ConsoleEnv>) {
  const { dataset, rows } = await previewDataset(c.var.deps, c.req.param("name") ?? "");
  const count = (
    v: string | undefined,
  ) => (v && /^\d{1,12}$/.test(v) ? Number(v).toLocaleString("en") : null);
  const imported = count(c.req.query("imported"));
  const replaced = count(c.req.query("replaced"));
  const notice = imported === null
    ? undefined
    : replaced === null
    ? `Uploaded: ${imported} rows added.`
    : `Uploaded: ${imported} rows replaced the ${replaced} rows before.`;
  return render(c, <DatasetPage session={c.var.session} dataset={dataset} rows={rows} notice={notice} />);
}
