/** `POST /api/datasets/{database_name}/{collection_name}`: getting data into Tessera (JSON, NDJSON, CSV). */
import { z } from "@hono/zod-openapi";
import { newRouter, securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { formatOf, type Position, readRecords, type UploadFormat } from "../../core/ingest/records.ts";
import { checkImportTarget, COLLECTION_NAME, DATABASE_NAME } from "../../core/ingest/import_target.ts";
import { importRecords } from "../../services/datasets/import.ts";
import { BadRequestError } from "../../core/errors.ts";

export const DatabaseName = z.string().regex(DATABASE_NAME);
export const CollectionName = z.string().regex(COLLECTION_NAME);

const ImportResult = z.object({
  inserted: z.number().int(),
  replaced: z.number().int(),
  database: z.string(),
  collection: z.string(),
  dataset_id: z.string(),
  rows: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
}).openapi("ImportResult");

const importRoute = securedRoute({
  method: "post",
  path: "/api/datasets/{database_name}/{collection_name}",
  tags: ["datasets"],
  summary: "Import a dataset (JSON array, NDJSON or CSV)",
  description: "Body: CSV (text/csv), NDJSON (application/x-ndjson) or a JSON array of objects " +
    "(application/json). Streams the body into the collection in batches. CSV cells become numbers and booleans " +
    "where they read as such (empty → null; a number with a leading zero stays text). All or nothing: a " +
    "malformed row, or a document too large for the store, is a 400 naming its line, and nothing of the " +
    "upload stays. Rows are added, never written over: a row whose `_id` exists already is a 409 naming " +
    "its line. The collection name is the dataset id of the other endpoints.",
  request: {
    params: z.object({ database_name: DatabaseName, collection_name: CollectionName }),
    query: z.object({
      format: z.enum(["csv", "ndjson", "json"]).optional().openapi({
        description: "Overrides the Content-Type",
      }),
      replace: z.enum(["true", "false"]).optional().openapi({
        description: "true: the new rows replace the collection's rows (default false: append)",
      }),
    }),
    body: {
      content: {
        "application/x-ndjson": { schema: z.string() },
        "text/csv": { schema: z.string() },
      },
    },
  },
  responses: {
    200: json(ImportResult, "What was imported"),
    400: json(
      z.object({ detail: z.string() }),
      "A malformed row or a document too large for the store (the message names its line)",
    ),
    409: json(
      z.object({ detail: z.string() }),
      "The dataset name is taken in another database, or a row's `_id` exists already (named by its line)",
    ),
    ...errorResponses,
  },
});

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

export function datasetImportRoutes() {
  const app = newRouter();
  app.openapi(importRoute, async (c) => {
    const { database_name, collection_name } = c.req.valid("param");
    const query = c.req.valid("query");
    const { store, config } = c.var.deps;
    const target = { db: database_name, collection: collection_name };
    // the schema checks the names' form; this adds Tessera's own database, refused as a path parameter
    checkImportTarget(target, config.TESSERA_DB, {
      db: ["path", "database_name"],
      collection: ["path", "collection_name"],
    });
    const format: UploadFormat | null = query.format ?? formatOf(c.req.header("content-type"));
    if (!format) {
      throw new BadRequestError(
        "unknown upload format: send Content-Type text/csv, application/x-ndjson or application/json, " +
          "or ?format=csv|ndjson|json",
      );
    }
    const position: Position = { where: "" };
    const records = readRecords(format, textChunks(c.req.raw.body), position);
    const result = await importRecords(store, config.TESSERA_DB, target, records, {
      replace: query.replace === "true",
      position,
    });
    return c.json(result, 200);
  });
  return app;
}
