/** Request bodies of spec 1, field for field, and the shapes of what its read operations return. */
import { z } from "@hono/zod-openapi";

/** Path parameters carry no type constraint in the spec; the length cap only keeps ids storable. */
export const PathName = z.string().max(256);

export const AnnotateItem = z.object({
  dataset_id: z.string(),
  identifier: z.string().min(1).max(256).openapi({ description: "Key the result is stored under" }),
  annotation_function: z.string().openapi({ description: "A name from GET /procedures" }),
  sample_id: z.string().nullable().optional().openapi({
    description: "One record by its id (`_id`; in inline rows `_id` or `id`), or a named sample: " +
      "`head:N` (first N rows) or `random:N[:SEED]` (N rows drawn uniformly, seeded). Default: every " +
      "row, up to the first 100,000.",
  }),
  data: z.unknown().optional().openapi({
    description: "One record (object) or a list of records to annotate instead of the stored dataset",
  }),
  items: z.unknown().optional().openapi({
    description: "A list of records to annotate instead of the stored dataset (give data or items)",
  }),
  params: z.unknown().optional().openapi({
    description: "The function's parameters (see GET /procedures); override the dataset's configuration " +
      "key by key",
  }),
}).strict().openapi("AnnotateItem");

export const ConfigurationItem = z.object({
  dataset_id: z.string(),
  // nonoptional: the key must be there (null is a value), and the OpenAPI document says so
  methods: z.unknown().nonoptional().openapi({
    description: "The annotation methods of the dataset: free JSON, null allowed. An object by function " +
      'name (`{"profile": {"top": 3}}`) or a list of names or `{name, params}` objects gives ' +
      "POST /annotations its default params.",
  }),
}).strict().openapi("ConfigurationItem");

export const ModelInfo = z.object({
  dataset_id: z.string(),
  distribution_id: z.string().openapi({ description: "A distribution id from GET /dataset/{name}" }),
  data_model_id: z.string().openapi({ description: "A model id from GET /model" }),
  concept_name: z.string().nullable(),
}).strict().openapi("ModelInfo");

export const Schema = z.object({
  dataset_id: z.string(),
  distribution_id: z.string().nullable().openapi({ description: "null: the schema of every distribution" }),
  fields: z.array(z.unknown()),
}).strict().openapi("Schema");

const Stamped = { created_at: z.string(), updated_at: z.string() };
const Replaced = { replaced: z.boolean().openapi({ description: "true when it replaced a stored one" }) };

export const AnnotationRecord = z.object({
  dataset_id: z.string(),
  identifier: z.string(),
  annotation_function: z.string(),
  params: z.unknown(),
  params_source: z.enum(["request", "configuration", "request+configuration", "defaults"]),
  source: z.enum(["dataset", "inline"]),
  sample_id: z.string().nullable(),
  rows: z.number().int().openapi({ description: "Rows annotated" }),
  truncated: z.boolean().openapi({ description: "The dataset has more rows than the run read" }),
  columns: z.array(z.string()),
  result: z.unknown(),
  ...Stamped,
}).openapi("Annotation");

export const ConfigurationRecord = z.object({ dataset_id: z.string(), methods: z.unknown(), ...Stamped })
  .openapi("Configuration");
export const ModelInfoRecord = ModelInfo.extend(Stamped).openapi("ModelInfoRecord");
export const SchemaRecord = Schema.extend(Stamped).openapi("SchemaRecord");

export const DistributionOut = z.object({
  id: z.string().openapi({ description: "`database.collection`, the distribution_id of the other bodies" }),
  database: z.string(),
  collection: z.string(),
  rows: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});

export const DatasetOut = z.object({
  id: z.string(),
  dataset_name: z.string(),
  database: z.string(),
  rows: z.number().int(),
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  distributions: z.array(DistributionOut),
  created_at: z.string(),
  updated_at: z.string(),
}).openapi("Dataset");

export const DataModelOut = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  vocabulary: z.string(),
  properties: z.array(z.object({ name: z.string(), type: z.string() }).passthrough()),
}).passthrough().openapi("DataModel");

export const ProcedureOut = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema of params" }),
  needs_data_model: z.boolean(),
}).openapi("Procedure");

export { Replaced };
