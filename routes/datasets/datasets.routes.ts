/**
 * `POST /api/datasets/{database_name}/{collection_name}`: getting data into Tessera (JSON, NDJSON, CSV);
 * `GET` on the same path: taking it away again (NDJSON, CSV), streamed.
 */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import {
  Detail,
  ExportParams,
  ExportQuery,
  ImportParams,
  ImportQuery,
  ImportResult,
} from "./datasets.schemas.ts";

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

export const exportDataset = securedRoute({
  method: "get",
  path: "/api/datasets/{database_name}/{collection_name}",
  tags: ["datasets"],
  summary: "Export a dataset's rows (NDJSON or CSV), streamed",
  description: "Streams every document of the collection, each with its `_id`, in stored (import) order, " +
    "reading the store one batch at a time as the client takes the answer. `Accept: application/x-ndjson` " +
    "(also the default, for `*/*` or no Accept) answers one JSON document per line, exactly as stored. " +
    "`Accept: text/csv` answers RFC 4180 CSV (CRLF line ends; cells holding a comma, quote or line break " +
    "are quoted, quotes doubled): the header is `_id`, the dataset's registered columns, then any field the " +
    "documents carry that the registry lacks (a write-back's field), found by reading the collection once " +
    "before the rows; null and absent values are empty cells, objects and arrays JSON text. With `fields` " +
    "the rows (and the CSV header) keep `_id` and those fields. Any other Accept is a 406 listing the two " +
    "types. A collection that is neither a registered dataset of this database nor holds documents is a " +
    "404; Tessera's own database is refused (422), as the import refuses it. Should the store fail after " +
    "the rows have started, the transfer is cut off (never a short body that looks complete).",
  request: { params: ExportParams, query: ExportQuery },
  responses: {
    200: {
      description: "The rows: NDJSON or CSV, as negotiated",
      content: {
        "application/x-ndjson": { schema: z.string() },
        "text/csv": { schema: z.string() },
      },
    },
    404: json(Detail, "No such collection in this database (the message names it)"),
    406: json(Detail, "The Accept header names neither application/x-ndjson nor text/csv"),
    409: json(Detail, "The dataset's first import is still running"),
    ...errorResponses,
  },
});
