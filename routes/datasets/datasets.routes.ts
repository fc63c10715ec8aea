/** `POST /api/datasets/{database_name}/{collection_name}`: getting data into Tessera (JSON, NDJSON, CSV). */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import { Detail, ImportParams, ImportQuery, ImportResult } from "./datasets.schemas.ts";

export const importDataset = securedRoute({
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
    params: ImportParams,
    query: ImportQuery,
    body: {
      content: {
        "application/x-ndjson": { schema: z.string() },
        "text/csv": { schema: z.string() },
      },
    },
  },
  responses: {
    200: json(ImportResult, "What was imported"),
    400: json(Detail, "A malformed row or a document too large for the store (the message names its line)"),
    409: json(
      Detail,
      "The dataset name is taken in another database, or a row's `_id` exists already (named by its line)",
    ),
    ...errorResponses,
  },
});
