/**
 * The datasets: the registry as a list, the upload (CSV, TSV, NDJSON or a JSON array, streamed from the
 * request into the same import service as `POST /api/datasets/...`), and a dataset's page with its
 * columns, their inferred types, its first rows and its history (the decision log's entries of it).
 */
import type { Context } from "hono";
import type { ConsoleEnv } from "../shared/env.ts";
import { type FormState, render } from "../shared/components.tsx";
import { datasetHref } from "../shared/hrefs.ts";
import { checkCsrf, pendingFormFor } from "../shared/session.ts";
import { HISTORY_PAGE, historyBefore } from "../shared/history_query.ts";
import { forbiddenPage } from "../shared/error_pages.tsx";
import { DatasetsPage, type DatasetsView } from "./views/datasets_page.tsx";
import { DatasetPage } from "./views/dataset_page.tsx";
import { boundaryOf, partTextChunks } from "./multipart.ts";
import { drain, readUploadHead, uploadTarget } from "./upload_form.ts";
import { listDatasets } from "../../../services/datasets/registry.ts";
import { importText } from "../../../services/datasets/import.ts";
import { deciderOf } from "../../http/decider.ts";
import { previewDataset } from "../../../services/datasets/preview.ts";
import { listDecisions } from "../../../services/decisions/list.ts";
import { BadRequestError, ConflictError, InvalidInputError } from "../../../core/errors.ts";

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

/**
 * The upload: the CSRF token and the target's names are checked before the first byte of the file is
 * read (upload_form.ts); the file then streams from the request into the import.
 */
export async function uploadDataset(c: Context<ConsoleEnv>) {
  const boundary = boundaryOf(c.req.header("content-type"));
  if (!boundary) return forbiddenPage(c, "This form could not be accepted (unexpected encoding).");
  const head = await readUploadHead(c.req.raw.body, boundary);
  if (!checkCsrf(c, head.csrf)) {
    await drain(head.rest);
    return forbiddenPage(c, "This form has expired or did not come from this console.");
  }
  const { values } = head;
  const target = uploadTarget(head, c.var.deps.config.TESSERA_DB);
  if (!target.ok) {
    await drain(head.rest);
    return showDatasets(c, { values, errors: target.errors }, undefined, 422);
  }
  try {
    const result = await importText(c.var.deps, {
      target: { db: target.db, collection: target.name },
      format: target.format,
      text: partTextChunks(target.file),
      replace: values.replace === "true",
      who: deciderOf(c),
      source: { via: "console", file: target.filename },
    });
    await drain(head.rest);
    const q = `imported=${result.inserted}${result.replaced ? `&replaced=${result.replaced}` : ""}`;
    return c.redirect(`${datasetHref(target.name)}?${q}`, 303);
  } catch (e) {
    if (!(e instanceof BadRequestError || e instanceof ConflictError || e instanceof InvalidInputError)) {
      throw e;
    }
    await drain(head.rest);
    const status = e instanceof ConflictError ? 409 : e instanceof BadRequestError ? 400 : 422;
    return showDatasets(
      c,
      { values, errors: { file: `${target.filename}: ${e.message}` } },
      undefined,
      status,
    );
  }
}

/** A dataset's page: its record, first rows and history (a page of it, older ones by `before`). */
export async function datasetPage(c: Context<ConsoleEnv>) {
  const { dataset, rows } = await previewDataset(c.var.deps, c.req.param("name") ?? "");
  const before = historyBefore(c.req.query("before"));
  const history = await listDecisions(c.var.deps, {
    dataset: dataset.collection,
    limit: HISTORY_PAGE,
    before,
  });
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
  const view = { session: c.var.session, dataset, rows, notice, history, before };
  return render(c, <DatasetPage {...view} />);
}
