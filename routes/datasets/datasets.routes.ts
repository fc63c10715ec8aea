/**
 * `POST /api/datasets/{database_name}/{collection_name}`: getting data into Tessera (JSON, NDJSON, CSV);
 * `GET` on the same path: taking it away again (NDJSON, CSV), streamed; `DELETE`: removing it.
 */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";
import {
  DeleteParams,
  Detail,
  ExportParams,
  ExportQuery,
  ImportParams,
  ImportQuery,
  ImportResult,
} from "./datasets.schemas.ts";

export const importDataset = securedRoute({
  role: "steward",
  method: "post",
  path: "/api/datasets/{database_name}/{collection_name}",
  tags: ["datasets"],
  summary: "Import a dataset (JSON array, NDJSON, CSV or TSV)",
  description: "Body: CSV (text/csv; the delimiter `,` `;` tab or `|` detected, or given by `delimiter`), " +
    "TSV (text/tab-separated-values), NDJSON (application/x-ndjson) or a JSON array of objects " +
    "(application/json). Streams the body into the collection in batches. CSV cells become numbers and booleans " +
    "where they read as such (empty → null; a number with a leading zero stays text). `mode` says what " +
    "happens to a dataset of the same name: create (a 409 if it exists), replace or append (the default). " +
    "All or nothing: a malformed row, a record of more than 10,000 columns, or a document too large for the " +
    "store, is a 400 naming its line, and nothing of the upload stays. Rows are added, never written over: " +
    "a row whose `_id` exists already is a 409 naming its line. One import per dataset name at a time " +
    "(another is a 409 until it ends); an import whose process dies is rolled back when Tessera next " +
    "starts or the name is next imported (docs/reliability.md). The collection name is the dataset id " +
    "of the other endpoints. The body is read as it arrives, never held whole, so its limit is the " +
    "import's own (IMPORT_BODY_LIMIT_MB, 2048 MB by default), above the other routes' BODY_LIMIT_MB.",
  request: {
    params: ImportParams,
    query: ImportQuery,
    body: {
      content: {
        "application/x-ndjson": { schema: z.string() },
        "text/csv": { schema: z.string() },
        "text/tab-separated-values": { schema: z.string() },
      },
      required: true, // an upload without a body (or a type) is a 400
    },
  },
  responses: {
    200: json(ImportResult, "What was imported"),
    400: json(
      Detail,
      "A body that does not read in its format (Content-Type, or `format`, which wins): a malformed row, " +
        "JSON that is not an array of objects, no row at all; more than 10,000 columns, or a document too " +
        "large for the store (the message names its line). JSON Schema cannot state these grammars, so the " +
        "body's schema is any text",
    ),
    404: json(Detail, "`target` is not a column of the imported rows (the item names it); nothing stays"),
    409: json(
      Detail,
      "The dataset name is taken in another database, exists already (mode create), is being imported " +
        "by another request, or a row's `_id` exists already (named by its line)",
    ),
    413: json(
      Detail,
      "The body is larger than the import's own limit (IMPORT_BODY_LIMIT_MB, 2048 MB by default; the other " +
        "routes keep BODY_LIMIT_MB); nothing of it stays",
    ),
    ...errorResponses,
  },
});

export const exportDataset = securedRoute({
  role: "viewer",
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

export const deleteDataset = securedRoute({
  role: "steward",
  method: "delete",
  path: "/api/datasets/{database_name}/{collection_name}",
  tags: ["datasets"],
  summary: "Delete a dataset: its rows and its registry record",
  description: "Removes every document of the collection, then the dataset's registry record (its columns, " +
    "distribution, target). A delete cut off halfway is finished by the next one. Refused while an import " +
    "of the name runs (409); an import that died is rolled back first. Tessera's own database is refused " +
    "(422), as the import refuses it. A collection that is neither a registered dataset of this database nor " +
    "holds documents is a 404, so a second delete of the same dataset answers 404 and changes nothing. The " +
    "dataset's annotation records, task documents and runs are kept.",
  request: { params: DeleteParams },
  responses: {
    204: { description: "Deleted" },
    404: json(Detail, "No such dataset in this database (the message names it)"),
    409: json(Detail, "An import of the dataset is running"),
    ...errorResponses,
  },
});
