/** The datasets area's request and answer shapes; the dataset names here are the ones every area's paths take. */
import { z } from "@hono/zod-openapi";
import { COLLECTION_NAME, DATABASE_NAME } from "../../core/ingest/import_target.ts";

export const DatabaseName = z.string().regex(DATABASE_NAME);
export const CollectionName = z.string().regex(COLLECTION_NAME);

export const ImportParams = z.object({ database_name: DatabaseName, collection_name: CollectionName });

/** The `delimiter` values the import takes: the character itself (URL-encoded) or its name. */
export const DELIMITER_NAMES = { comma: ",", semicolon: ";", tab: "\t", pipe: "|" } as const;

export const ImportQuery = z.object({
  format: z.enum(["csv", "tsv", "ndjson", "json"]).optional().openapi({
    description: "Overrides the Content-Type (`tsv`: CSV with tabs, also `text/tab-separated-values`)",
  }),
  mode: z.enum(["create", "replace", "append"]).optional().openapi({
    description: "What to do with a dataset of this name: `create` makes a new dataset and is a 409 when " +
      "the name exists (or the collection holds documents); `replace` swaps the dataset's rows for the " +
      "upload's (the old rows go only once the new ones are all in); `append` adds the rows. Default " +
      "`append` (or `replace` with `replace=true`).",
  }),
  replace: z.enum(["true", "false"]).optional().openapi({
    description: "The older spelling of `mode`: true is `mode=replace`, false `mode=append`. Given with a " +
      "`mode`, `mode` wins.",
  }),
  delimiter: z.enum([",", ";", "\t", "|", "comma", "semicolon", "tab", "pipe"]).optional().openapi({
    description: "CSV and TSV: the field delimiter, as the character (URL-encoded: `%2C`, `%3B`, `%09`, " +
      "`%7C`) or its name. Absent: CSV detects it from the first 20 rows among `,` `;` tab `|` " +
      "(quoted fields respected; the one splitting the header into more than one field and most rows " +
      "into as many fields; `,` for a file of one column), TSV uses tab. JSON and NDJSON do not read it.",
  }),
  target: z.string().min(1).optional().openapi({
    description: "The dataset's target: the column feature importance predicts when asked for none. " +
      "Recorded with the dataset and kept when columns are added later (an approved anomaly detection's " +
      "`is_anomaly`, a write-back's new field). Absent: the target recorded before, while the column is " +
      "still there, else the last column of the import. A name that is not a column of the imported rows " +
      "is a 404 naming `target`, and nothing is imported.",
    example: "churned",
  }),
});

export const ImportResult = z.object({
  mode: z.enum(["create", "replace", "append"]).openapi({ description: "What the import did" }),
  inserted: z.number().int(),
  replaced: z.number().int(),
  database: z.string(),
  collection: z.string(),
  dataset_id: z.string(),
  rows: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  delimiter: z.string().nullable().openapi({
    description: "The field delimiter a CSV or TSV upload was read with (given or detected); null for JSON",
  }),
  target: z.string().nullable().openapi({
    description: "The dataset's recorded target column (the `target` parameter, the one recorded before, " +
      "or the last column)",
  }),
}).openapi("ImportResult");

export { Detail } from "../http/schemas.ts";

export const ExportParams = ImportParams;

export const DeleteParams = ImportParams;

/**
 * A comma-separated list with no empty name (each trimmed as JavaScript's trim does): the rule
 * services/datasets/export.ts checks, stated in the OpenAPI document.
 */
const SPACE = "\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const NAME = `[^,]*[^,${SPACE}][^,]*`;
const FIELD_LIST = `^${NAME}(,${NAME})*$`;

export const ExportQuery = z.object({
  fields: z.string().optional().openapi({
    pattern: FIELD_LIST,
    description: "Comma-separated top-level fields to keep (`_id` always comes along), e.g. " +
      "`fields=y_pred,y_pred_fair`. A name that the dataset's columns do not list and no document carries " +
      "is a 422.",
    example: "y_pred,y_pred_fair",
  }),
  format: z.enum(["ndjson", "csv"]).optional().openapi({
    description: "Overrides the Accept header (a download link cannot set headers)",
  }),
});
