/**
 * The datasets area's handlers: the import (the request's names, format and streamed body in, the
 * import's report out) and the export (names, negotiated format and field list in, the rows streamed out).
 */
import type { AppRouteHandler } from "../http/env.ts";
import type * as routes from "./datasets.routes.ts";
import { type CsvDelimiter, formatOf } from "../../core/ingest/records.ts";
import { DELIMITER_NAMES } from "./datasets.schemas.ts";
import { BadRequestError, InvalidInputError } from "../../core/errors.ts";
import { checkImportTarget } from "../../core/ingest/import_target.ts";
import { importText } from "../../services/datasets/import.ts";
import { deciderOf } from "../http/decider.ts";
import { deleteDataset as deleteDatasetRows } from "../../services/datasets/delete.ts";
import {
  EXPORT_MEDIA_TYPES,
  type ExportFormat,
  exportRows,
  parseFieldList,
} from "../../services/datasets/export.ts";

/** Where the request names the target (the loc of a refused name). */
const TARGET_LOC = { db: ["path", "database_name"], collection: ["path", "collection_name"] };

/** Text chunks of a request body. */
async function* textChunks(body: ReadableStream<Uint8Array> | null): AsyncGenerator<string> {
  if (!body) return;
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    yield value;
  }
}

/** The delimiter a `delimiter` parameter names (the character, or its name). */
function delimiterOf(given: string | undefined): CsvDelimiter | undefined {
  if (given === undefined) return undefined;
  return (DELIMITER_NAMES[given as keyof typeof DELIMITER_NAMES] ?? given) as CsvDelimiter;
}

export const importDataset: AppRouteHandler<typeof routes.importDataset> = async (c) => {
  const { database_name, collection_name } = c.req.valid("param");
  const query = c.req.valid("query");
  const target = { db: database_name, collection: collection_name };
  // the schema checks the names' form; this adds Tessera's own database, which only the config names
  checkImportTarget(target, c.var.deps.config.TESSERA_DB, TARGET_LOC);
  const format = query.format ?? formatOf(c.req.header("content-type"));
  // `mode` wins over its older spelling: two query parameters, so /openapi.json cannot refuse the pair
  const replace = query.replace === undefined || query.mode ? undefined : query.replace === "true";
  if (!format) {
    throw new BadRequestError(
      "unknown upload format: send Content-Type text/csv, text/tab-separated-values, " +
        "application/x-ndjson or application/json, or ?format=csv|tsv|ndjson|json",
    );
  }
  // a delimiter is read by CSV and TSV only (the answer's `delimiter` is null for JSON and NDJSON): the
  // format may come from the Content-Type, so /openapi.json cannot refuse the pair
  const csv = format === "csv" || format === "tsv";
  const result = await importText(c.var.deps, {
    target,
    format,
    text: textChunks(c.req.raw.body),
    mode: query.mode,
    replace,
    delimiter: csv ? delimiterOf(query.delimiter) : undefined,
    targetColumn: query.target,
    targetLoc: ["query", "target"],
    who: deciderOf(c),
    source: { via: "api" },
  });
  return c.json(result, 200);
};

/** The export's formats in the order they win a tie of the Accept header's weights (the default first). */
const SERVED: readonly ExportFormat[] = ["ndjson", "csv"];

/**
 * The format an Accept header asks for (RFC 9110 §12.5.1): each type's weight is the q of the most
 * specific range matching it (`type/subtype`, then `type/*`, then `*\/*`); the heaviest above 0 wins, a
 * tie going to NDJSON. No header, or an empty one, is NDJSON; null when neither type is acceptable.
 */
function negotiateExport(accept: string | undefined): ExportFormat | null {
  if (!accept?.trim()) return "ndjson";
  const ranges = accept.split(",").map((part) => {
    const [range, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    return { range, q: Number.isFinite(weight) ? weight : 0 };
  });
  let best: ExportFormat | null = null;
  let bestQ = 0;
  for (const format of SERVED) {
    const type = EXPORT_MEDIA_TYPES[format];
    const major = type.split("/")[0];
    const match = ranges.find((r) => r.range === type) ?? ranges.find((r) => r.range === `${major}/*`) ??
      ranges.find((r) => r.range === "*/*");
    if (match && match.q > bestQ) [best, bestQ] = [format, match.q];
  }
  return best;
}

export const exportDataset: AppRouteHandler<typeof routes.exportDataset> = async (c) => {
  const { database_name, collection_name } = c.req.valid("param");
  const query = c.req.valid("query");
  const target = { db: database_name, collection: collection_name };
  checkImportTarget(target, c.var.deps.config.TESSERA_DB, TARGET_LOC);
  const accept = c.req.header("accept");
  const format = query.format ?? negotiateExport(accept);
  if (!format) {
    const types = SERVED.map((f) => EXPORT_MEDIA_TYPES[f]).join(" or ");
    return c.json({ detail: `cannot answer with '${accept}': this route serves ${types}` }, 406);
  }
  let fields: string[] | undefined;
  if (query.fields !== undefined) {
    const parsed = parseFieldList(query.fields);
    if ("problem" in parsed) throw new InvalidInputError(parsed.problem, ["query", "fields"]);
    fields = parsed.fields;
  }
  const out = await exportRows(c.var.deps, {
    target,
    format,
    fields,
    loc: { ...TARGET_LOC, fields: ["query", "fields"] },
  });
  const ext = format === "csv" ? "csv" : "ndjson";
  return c.body(out.body, 200, {
    "content-type": `${EXPORT_MEDIA_TYPES[format]}; charset=utf-8${
      format === "csv" ? "; header=present" : ""
    }`,
    "content-disposition": `attachment; filename="${collection_name}.${ext}"`,
    "vary": "Accept",
  });
};

export const deleteDataset: AppRouteHandler<typeof routes.deleteDataset> = async (c) => {
  const { database_name, collection_name } = c.req.valid("param");
  await deleteDatasetRows(c.var.deps, {
    target: { db: database_name, collection: collection_name },
    who: deciderOf(c),
    loc: TARGET_LOC,
  });
  return c.body(null, 204);
};
