/**
 * A dataset's annotation page (spec 1's procedures from the console): run a function on the dataset's
 * rows (semantic types, profile, concept mapping to a data model of the catalogue, PII scan), read the
 * result as tables, accept a proposed mapping (stored as POST /data_model_info and POST /schema store it),
 * and see the earlier runs. Also the dataset's delete, with its confirmation step, whose refusal is
 * shown on this page. Every step calls the same services as the JSON API.
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { type FormState, render } from "../shared/components.tsx";
import { datasetHref } from "../shared/hrefs.ts";
import { formFields } from "../shared/session.ts";
import { notFoundPage } from "../shared/error_pages.tsx";
import { AnnotationPage, type AnnotationView } from "./views/annotation_page.tsx";
import { ConfirmDeletePage } from "./views/confirm_delete_page.tsx";
import { type DatasetRecord, findDataset } from "../../../services/datasets/registry.ts";
import { deleteDataset } from "../../../services/datasets/delete.ts";
import { deciderOf } from "../../http/decider.ts";
import { listAnnotations, runAnnotation } from "../../../services/annotation/runs.ts";
import {
  listModelInfo,
  listSchemas,
  saveModelInfo,
  saveSchema,
} from "../../../services/annotation/dataset_records.ts";
import { listModels } from "../../../services/annotation/data_models.ts";
import { distributionId } from "../../../services/annotation/lookups.ts";
import type { ConceptMapping } from "../../../core/annotate/concept_mapping.ts";
import { ConflictError, InvalidInputError, InvalidInputsError, NotFoundError } from "../../../core/errors.ts";

/** The identifier a console run is stored under: one per function, a new run replaces the last. */
const identifierOf = (fn: string) => `console-${fn}`;

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

export async function annotationPage(c: Context<ConsoleEnv>) {
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

export async function runSubmit(c: Context<ConsoleEnv>) {
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
      `${datasetHref(dataset.dataset_name)}/annotation?record=${encodeURIComponent(saved.identifier)}`,
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
export async function acceptSubmit(c: Context<ConsoleEnv>) {
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
  return c.redirect(`${datasetHref(name)}/annotation?accepted=1#accepted`, 303);
}

/** The delete: the first post shows the confirmation, the confirmed one deletes and goes to the list. */
export async function deleteSubmit(c: Context<ConsoleEnv>) {
  const dataset = await datasetOf(c);
  if (!dataset) return notFoundPage(c, "There is no such dataset.");
  if ((await formFields(c)).confirm !== "yes") {
    return render(c, <ConfirmDeletePage session={c.var.session} dataset={dataset} />);
  }
  try {
    await deleteDataset(c.var.deps, {
      target: { db: dataset.database, collection: dataset.collection },
      who: deciderOf(c),
    });
  } catch (e) {
    if (!(e instanceof ConflictError || e instanceof NotFoundError || e instanceof InvalidInputError)) {
      throw e;
    }
    return showAnnotation(c, dataset, { form: { errors: { form: e.message } }, status: 409 });
  }
  return c.redirect("/console/datasets", 303);
}
