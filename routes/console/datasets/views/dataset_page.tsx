// hono/jsx renders on the server, where a list needs no keys (a `key` would be written out as an attribute)
// deno-lint-ignore-file jsx-key
/** A dataset's page: what it is, its columns with their inferred types, its first rows, its history. */
import { Layout } from "../../shared/layout.tsx";
import {
  BackLink,
  DataTable,
  Facts,
  Message,
  Panel,
  PostForm,
  Value,
  When,
} from "../../shared/components.tsx";
import { datasetHref } from "../../shared/hrefs.ts";
import { DecisionHistory } from "../../shared/decision_history.tsx";
import type { DecisionPage } from "../../../../services/decisions/list.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";
import { own } from "../../../../core/data_keys.ts";

export interface DatasetView {
  session: ConsoleSession;
  dataset: DatasetRecord;
  rows: Record<string, unknown>[];
  notice?: string;
  /** A page of the dataset's decisions, newest first, and the entry id it starts before (older pages). */
  history: DecisionPage;
  before?: string;
}

export const DatasetPage = ({ session, dataset, rows, notice, history, before }: DatasetView) => {
  const href = datasetHref(dataset.dataset_name);
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
        <PostForm action={`${datasetHref(dataset.dataset_name)}/delete`} session={session} needs="steward">
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
      <Panel id="history" title="History">
        <p class="muted">
          {before
            ? (
              <>
                Older decisions. <a href={`${href}#history`}>Back to the newest</a>
              </>
            )
            : "Imports, replacements and deletes of this dataset, newest first, with who decided them."}
        </p>
        <DecisionHistory
          label="History of this dataset"
          entries={history.decisions}
          empty="No decision about this dataset is recorded."
          olderHref={history.next && `${href}?before=${history.next}#history`}
        />
      </Panel>
    </Layout>
  );
};
