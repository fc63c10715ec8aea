/** The datasets area's request and answer shapes; the dataset names here are the ones every area's paths take. */
import { z } from "@hono/zod-openapi";
import { COLLECTION_NAME, DATABASE_NAME } from "../../core/ingest/import_target.ts";

export const DatabaseName = z.string().regex(DATABASE_NAME);
export const CollectionName = z.string().regex(COLLECTION_NAME);

export const ImportParams = z.object({ database_name: DatabaseName, collection_name: CollectionName });

export const ImportQuery = z.object({
  format: z.enum(["csv", "ndjson", "json"]).optional().openapi({
    description: "Overrides the Content-Type",
  }),
  replace: z.enum(["true", "false"]).optional().openapi({
    description: "true: the new rows replace the collection's rows (default false: append)",
  }),
});

export const ImportResult = z.object({
  inserted: z.number().int(),
  replaced: z.number().int(),
  database: z.string(),
  collection: z.string(),
  dataset_id: z.string(),
  rows: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
}).openapi("ImportResult");

export const Detail = z.object({ detail: z.string() });

export const ExportParams = ImportParams;

export const ExportQuery = z.object({
  fields: z.string().optional().openapi({
    description: "Comma-separated top-level fields to keep (`_id` always comes along), e.g. " +
      "`fields=y_pred,y_pred_fair`. A name that the dataset's columns do not list and no document carries " +
      "is a 422.",
    example: "y_pred,y_pred_fair",
  }),
  format: z.enum(["ndjson", "csv"]).optional().openapi({
    description: "Overrides the Accept header (a download link cannot set headers)",
  }),
});
