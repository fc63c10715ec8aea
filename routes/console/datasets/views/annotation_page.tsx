/** A dataset's annotation page: the run form, the result shown, the accepted mapping, earlier runs. */
import { Layout } from "../../shared/layout.tsx";
import {
  BackLink,
  DataTable,
  type FormState,
  linkColumn,
  Message,
  Panel,
  PostForm,
  SelectField,
  Submit,
  When,
} from "../../shared/components.tsx";
import { datasetHref } from "../../shared/hrefs.ts";
import { AnnotationResultView } from "./annotation_results.tsx";
import type { ConsoleSession } from "../../../../services/console/sessions.ts";
import type { DatasetRecord } from "../../../../services/datasets/registry.ts";
import { type AnnotationRecord, listProcedures } from "../../../../services/annotation/runs.ts";
import type { ModelInfoRecord, SchemaRecord } from "../../../../services/annotation/dataset_records.ts";
import type { ConceptMapping } from "../../../../core/annotate/concept_mapping.ts";

export interface AnnotationView {
  session: ConsoleSession;
  dataset: DatasetRecord;
  records: AnnotationRecord[];
  shown: AnnotationRecord | null;
  models: { id: string; name: string }[];
  modelInfo: ModelInfoRecord[];
  schemas: SchemaRecord[];
  form: FormState;
  notice?: string;
}

const StoredMapping = ({ modelInfo, schemas }: Pick<AnnotationView, "modelInfo" | "schemas">) => {
  if (!modelInfo.length && !schemas.length) return <p class="muted">No mapping accepted yet.</p>;
  return (
    <>
      {modelInfo.map((m) => (
        <p>
          Distribution <code>{m.distribution_id}</code> maps to data model <strong>{m.data_model_id}</strong>
          {m.concept_name ? ` (concept ${m.concept_name})` : ""}, accepted <When iso={m.updated_at} />.
        </p>
      ))}
      {schemas.map((s) => (
        <DataTable
          label="Stored mapping"
          compact
          rows={s.fields as { name?: unknown; property?: unknown }[]}
          columns={[
            { head: "Column", rowHead: true, cell: (f) => String(f.name ?? "") },
            { head: "Property", cell: (f) => String(f.property ?? "") },
          ]}
        />
      ))}
    </>
  );
};

export const AnnotationPage = (v: AnnotationView) => {
  const name = v.dataset.dataset_name;
  const fns = listProcedures().map((p) => [p.name, p.name.replace(/_/g, " ")] as [string, string]);
  return (
    <Layout title={`Annotate ${name}`} active="datasets" session={v.session}>
      <BackLink href={datasetHref(name)}>{name}</BackLink>
      <h1>Annotate {name}</h1>
      <Message kind="success" text={v.notice} />
      <Panel id="run" title="Run a procedure">
        <PostForm
          action={`${datasetHref(name)}/annotation`}
          session={v.session}
          needs="reviewer"
          state={v.form}
        >
          <div class="form-grid">
            <SelectField
              label="Procedure"
              name="annotation_function"
              options={fns}
              state={v.form}
              value="semantic_types"
            />
            <SelectField
              label="Data model"
              name="data_model_id"
              options={v.models.map((m) => [m.id, `${m.name} (${m.id})`])}
              state={v.form}
              hint="Used by concept mapping."
            />
          </div>
          <Submit label="Run annotation" />
        </PostForm>
      </Panel>
      {v.shown && (
        <Panel id="result" title={<>Result: {v.shown.annotation_function.replace(/_/g, " ")}</>}>
          <p class="muted">
            {v.shown.rows.toLocaleString("en")}{" "}
            rows read{v.shown.truncated ? " (the first ones only)" : ""}, run{" "}
            <When iso={v.shown.updated_at} />.
          </p>
          <AnnotationResultView record={v.shown} />
          {v.shown.annotation_function === "concept_mapping" &&
            (v.shown.result as ConceptMapping).mapping.length > 0 && (
            <PostForm
              action={`${datasetHref(name)}/annotation/accept`}
              session={v.session}
              needs="reviewer"
              hidden={{ identifier: v.shown.identifier }}
            >
              <Submit label="Accept mapping" />
            </PostForm>
          )}
        </Panel>
      )}
      <Panel id="accepted" title="Accepted mapping">
        <StoredMapping modelInfo={v.modelInfo} schemas={v.schemas} />
      </Panel>
      <h2 id="earlier">Earlier annotations</h2>
      {v.records.length
        ? (
          <DataTable
            label="Earlier annotations"
            rows={v.records}
            columns={[
              linkColumn<AnnotationRecord>(
                "Identifier",
                (r) => `${datasetHref(name)}/annotation?record=${encodeURIComponent(r.identifier)}`,
                (r) => r.identifier,
              ),
              { head: "Procedure", cell: (r) => r.annotation_function },
              { head: "Rows", num: true, cell: (r) => r.rows.toLocaleString("en") },
              { head: "Run", class: "nowrap", cell: (r) => <When iso={r.updated_at} /> },
            ]}
          />
        )
        : <p class="panel empty">No annotations yet.</p>}
    </Layout>
  );
};
