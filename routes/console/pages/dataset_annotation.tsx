/**
 * A dataset's annotation page (spec 1's procedures from the console): run a function on the dataset's rows
 * (semantic types, profile, concept mapping to a data model of the catalogue, PII scan), read the result
 * as tables, accept a proposed mapping (stored as POST /data_model_info and POST /schema store it), and see
 * the earlier runs. Also the dataset's delete, with its confirmation step. Every step calls the same
 * services as the JSON API.
 */
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { Layout } from "../shared/layout.tsx";
import {
  BackLink,
  DataTable,
  type FormState,
  linkColumn,
  Message,
  Panel,
  PostForm,
  render,
  SelectField,
  Submit,
  When,
} from "../shared/components.tsx";
import { formFields } from "../shared/session.ts";
import { AnnotationResultView } from "./dataset_annotation_results.tsx";
import { notFoundPage } from "../shared/error_pages.tsx";
import type { ConsoleSession } from "../../../services/console/sessions.ts";
import { type DatasetRecord, findDataset } from "../../../services/datasets/registry.ts";
import { deleteDataset } from "../../../services/datasets/delete.ts";
import {
  type AnnotationRecord,
  listAnnotations,
  listProcedures,
  runAnnotation,
} from "../../../services/annotation/runs.ts";
import {
  listModelInfo,
  listSchemas,
  type ModelInfoRecord,
  saveModelInfo,
  saveSchema,
  type SchemaRecord,
} from "../../../services/annotation/dataset_records.ts";
import { listModels } from "../../../services/annotation/data_models.ts";
import { distributionId } from "../../../services/annotation/lookups.ts";
import type { ConceptMapping } from "../../../core/annotate/concept_mapping.ts";
import { ConflictError, InvalidInputError, InvalidInputsError, NotFoundError } from "../../../core/errors.ts";

const base = (name: string) => `/console/datasets/${encodeURIComponent(name)}`;
/** The identifier a console run is stored under: one per function, a new run replaces the last. */
const identifierOf = (fn: string) => `console-${fn}`;

interface AnnotationView {
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

const AnnotationPage = (v: AnnotationView) => {
  const name = v.dataset.dataset_name;
  const fns = listProcedures().map((p) => [p.name, p.name.replace(/_/g, " ")] as [string, string]);
  return (
    <Layout title={`Annotate ${name}`} active="datasets" session={v.session}>
      <BackLink href={base(name)}>{name}</BackLink>
      <h1>Annotate {name}</h1>
      <Message kind="success" text={v.notice} />
      <Panel id="run" title="Run a procedure">
        <PostForm action={`${base(name)}/annotation`} session={v.session} state={v.form}>
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
              action={`${base(name)}/annotation/accept`}
              session={v.session}
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
                (r) => `${base(name)}/annotation?record=${encodeURIComponent(r.identifier)}`,
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

const orEmpty = <T,>(p: Promise<T[]>) =>
  p.catch((e) => (e instanceof NotFoundError ? [] : Promise.reject(e)));

async function showAnnotation(
  c: Context<ConsoleEnv>,
  dataset: DatasetRecord,
  opts: { form?: FormState; record?: string; notice?: string; status?: 200 | 404 | 409 | 422 } = {},
) {
  const deps = c.var.deps;
  const name = dataset.dataset_name;
  const records = (await orEmpty(listAnnotations(deps, name)))
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at));
  const shown = opts.record === undefined ? null : records.find((r) => r.identifier === opts.record) ?? null;
  const view: AnnotationView = {
    session: c.var.session,
    dataset,
    records,
    shown,
    models: (await listModels(deps.config.MODELS_DIR)).map((m) => ({ id: m.id, name: m.name })),
    modelInfo: await orEmpty(listModelInfo(deps, name)),
    schemas: await orEmpty(listSchemas(deps, name)),
    form: opts.form ?? {},
    notice: opts.notice,
  };
  return render(c, <AnnotationPage {...view} />, opts.status ?? 200);
}

async function datasetOf(c: Context<ConsoleEnv>): Promise<DatasetRecord | null> {
  const { store, config } = c.var.deps;
  const found = await findDataset(store, config.TESSERA_DB, c.req.param("name") ?? "");
  return found && !found.importing ? found : null;
}

async function annotationPage(c: Context<ConsoleEnv>) {
  const dataset = await datasetOf(c);
  if (!dataset) return notFoundPage(c, "There is no such dataset.");
  const accepted = c.req.query("accepted") === "1" ? "Mapping accepted and stored." : undefined;
  return showAnnotation(c, dataset, { record: c.req.query("record"), notice: accepted });
}

/** The form's field a refusal concerns (its loc under body.params, or the function), else the form. */
function fieldOf(e: InvalidInputError): string {
  const at = e.loc.map(String);
  if (at.includes("data_model_id")) return "data_model_id";
  if (at.includes("annotation_function")) return "annotation_function";
  return "form";
}

async function runSubmit(c: Context<ConsoleEnv>) {
  const dataset = await datasetOf(c);
  if (!dataset) return notFoundPage(c, "There is no such dataset.");
  const { _csrf: _, ...values } = await formFields(c);
  const fn = values.annotation_function ?? "";
  const params = fn === "concept_mapping" ? { data_model_id: values.data_model_id ?? "" } : {};
  try {
    const saved = await runAnnotation(c.var.deps, {
      datasetId: dataset.dataset_name,
      identifier: identifierOf(fn),
      functionName: fn,
      params,
    });
    return c.redirect(
      `${base(dataset.dataset_name)}/annotation?record=${encodeURIComponent(saved.identifier)}`,
      303,
    );
  } catch (e) {
    if (e instanceof InvalidInputError) {
      return showAnnotation(c, dataset, {
        form: { values, errors: { [fieldOf(e)]: e.message } },
        status: 422,
      });
    }
    if (e instanceof InvalidInputsError || e instanceof NotFoundError) {
      return showAnnotation(c, dataset, { form: { values, errors: { form: e.message } }, status: 422 });
    }
    throw e;
  }
}

/**
 * Accepting a concept mapping: the distribution's data model (POST /data_model_info, concept = the model)
 * and its field descriptors, one per mapped column with the property and its unit (POST /schema).
 */
async function acceptSubmit(c: Context<ConsoleEnv>) {
  const dataset = await datasetOf(c);
  if (!dataset) return notFoundPage(c, "There is no such dataset.");
  const name = dataset.dataset_name;
  const identifier = (await formFields(c)).identifier ?? "";
  const records = await orEmpty(listAnnotations(c.var.deps, name));
  const record = records.find((r) =>
    r.identifier === identifier && r.annotation_function === "concept_mapping"
  );
  const distribution = dataset.distributions.find((d) => d.database === dataset.database) ??
    dataset.distributions[0];
  if (!record || !distribution) {
    const msg = !record
      ? "That concept mapping is no longer stored: run it again."
      : "The dataset has no distribution.";
    return showAnnotation(c, dataset, { form: { errors: { form: msg } }, status: 409 });
  }
  const result = record.result as ConceptMapping;
  const units = new Map(
    result.columns.flatMap((col) =>
      col.candidates.filter((k) => k.unit).map((k) => [`${col.column}\u0000${k.property}`, k.unit])
    ),
  );
  const fields = result.mapping.map((m) => {
    const unit = units.get(`${m.column}\u0000${m.property}`);
    return { name: m.column, property: m.property, ...(unit ? { unit } : {}) };
  });
  const distId = distributionId(distribution);
  await saveModelInfo(c.var.deps, {
    datasetId: name,
    distributionId: distId,
    dataModelId: result.data_model_id,
    conceptName: result.data_model_id,
  });
  await saveSchema(c.var.deps, { datasetId: name, distributionId: distId, fields });
  return c.redirect(`${base(name)}/annotation?accepted=1#accepted`, 303);
}

const ConfirmDeletePage = ({ session, dataset }: { session: ConsoleSession; dataset: DatasetRecord }) => (
  <Layout title={`Delete ${dataset.dataset_name}`} active="datasets" session={session}>
    <BackLink href={base(dataset.dataset_name)}>{dataset.dataset_name}</BackLink>
    <h1>Delete {dataset.dataset_name}?</h1>
    <Message
      kind="info"
      text={
        <>
          All {dataset.rows.toLocaleString("en")} rows of <code>{dataset.database}.{dataset.collection}</code>
          {" "}
          and the dataset's record will be removed. This cannot be undone.
        </>
      }
    />
    <PostForm action={`${base(dataset.dataset_name)}/delete`} session={session} hidden={{ confirm: "yes" }}>
      <Submit label="Confirm delete" kind="danger">
        <a href={base(dataset.dataset_name)}>Cancel</a>
      </Submit>
    </PostForm>
  </Layout>
);

/** The delete: the first post shows the confirmation, the confirmed one deletes and goes to the list. */
async function deleteSubmit(c: Context<ConsoleEnv>) {
  const dataset = await datasetOf(c);
  if (!dataset) return notFoundPage(c, "There is no such dataset.");
  if ((await formFields(c)).confirm !== "yes") {
    return render(c, <ConfirmDeletePage session={c.var.session} dataset={dataset} />);
  }
  try {
    await deleteDataset(c.var.deps, { target: { db: dataset.database, collection: dataset.collection } });
  } catch (e) {
    if (!(e instanceof ConflictError || e instanceof NotFoundError || e instanceof InvalidInputError)) {
      throw e;
    }
    return showAnnotation(c, dataset, { form: { errors: { form: e.message } }, status: 409 });
  }
  return c.redirect("/console/datasets", 303);
}

/** The routes of a dataset's annotation page and its delete. */
export function datasetAnnotationPages(app: Hono<ConsoleEnv>, page: MiddlewareHandler<ConsoleEnv>): void {
  app.get("/console/datasets/:name/annotation", page, annotationPage);
  app.post("/console/datasets/:name/annotation", page, runSubmit);
  app.post("/console/datasets/:name/annotation/accept", page, acceptSubmit);
  app.post("/console/datasets/:name/delete", page, deleteSubmit);
}
