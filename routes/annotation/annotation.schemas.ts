/**
 * The schemas of spec 1: its request bodies field for field, and the shapes of its answers (the records
 * it stores, the registered datasets, the data models of the catalog, each annotation function's result).
 */
import { z } from "@hono/zod-openapi";
import { PII_KINDS } from "../../core/annotate/pii_scan.ts";
import { describeProcedures } from "../../core/annotate/procedures.ts";
import { ROW_CAP } from "../../services/datasets/rows.ts";
import { depthNote, shallowJson } from "../http/schemas.ts";

/** Path parameters carry no type constraint in the spec; the length cap only keeps ids storable. */
export const PathName = z.string().max(256);

// The rules of POST /annotations that the service checks (core/annotate/sample.ts, services/annotation/
// runs.ts, each with its own message) stated in the OpenAPI document too, so a client (or a fuzzer) can
// tell a valid body from the schema alone. What needs the stored data (a column, a record, a data model
// that exists) cannot be said here: it is a 422 (404 for a record or dataset) naming the field.

const PROCEDURES = describeProcedures();

/** A record list: one or more JSON objects. */
const recordList = { type: "array", items: { type: "object" }, minItems: 1 } as const;

/** `head:N` or `random:N[:SEED]` with 1 ≤ N ≤ ROW_CAP (leading zeros allowed); any other string is a record id. */
const N = `0*([1-9][0-9]{0,${String(ROW_CAP).length - 2}}|${ROW_CAP})`;
const sampleIdRule = {
  anyOf: [
    { not: { pattern: "^(head|random):[0-9]+(:[0-9]+)?$" } },
    { pattern: `^head:${N}$` },
    { pattern: `^random:${N}(:[0-9]+)?$` },
  ],
};

/**
 * `params` by `annotation_function`: null, or an object the function's schema takes (GET /procedures). A
 * function with required parameters (concept_mapping: data_model_id) needs them in the request, or in the
 * dataset's configuration, which the request's override key by key.
 */
const paramsByFunction = PROCEDURES.map(({ name, parameters }) => {
  const { $schema: _, ...schema } = parameters as Record<string, unknown>;
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return {
    if: { properties: { annotation_function: { const: name } }, required: ["annotation_function"] },
    then: required
      ? { properties: { params: schema }, required: ["params"] }
      : { properties: { params: { anyOf: [{ type: "null" }, schema] } } },
  };
});

export const AnnotateItem = z.object({
  dataset_id: z.string(),
  identifier: z.string().min(1).max(256).openapi({ description: "Key the result is stored under" }),
  annotation_function: z.string().openapi({
    description: "A name from GET /procedures",
    enum: PROCEDURES.map((p) => p.name),
  }),
  sample_id: z.string().nullable().optional().openapi({
    description: "One record by its id (`_id`; in inline rows `_id` or `id`), or a named sample: " +
      "`head:N` (first N rows) or `random:N[:SEED]` (N rows drawn uniformly, seeded). Default: every " +
      "row, up to the first 100,000.",
    ...sampleIdRule,
  }),
  data: shallowJson(z.unknown()).optional().openapi({
    description: "One record (object) or a list of records to annotate instead of the stored dataset. " +
      depthNote(),
    anyOf: [{ type: "null" }, { type: "object" }, recordList],
  }),
  items: shallowJson(z.unknown()).optional().openapi({
    description: "A list of records to annotate instead of the stored dataset (give data or items). " +
      depthNote(),
    anyOf: [{ type: "null" }, recordList],
  }),
  params: shallowJson(z.unknown()).optional().openapi({
    description: "The function's parameters (see GET /procedures); override the dataset's configuration " +
      `key by key. ${depthNote()}`,
  }),
}).strict().openapi("AnnotateItem", {
  // data and items not both; params as the function's schema says
  not: {
    required: ["data", "items"],
    properties: { data: { not: { type: "null" } }, items: { not: { type: "null" } } },
  },
  allOf: paramsByFunction,
} as Record<string, unknown>);

export const ConfigurationItem = z.object({
  dataset_id: z.string(),
  // nonoptional: the key must be there (null is a value), and the OpenAPI document says so
  methods: shallowJson(z.unknown()).nonoptional().openapi({
    description: "The annotation methods of the dataset: free JSON, null allowed. An object by function " +
      'name (`{"profile": {"top": 3}}`) or a list of names or `{name, params}` objects gives ' +
      `POST /annotations its default params. ${depthNote()}`,
  }),
}).strict().openapi("ConfigurationItem");

const modelInfoFields = {
  dataset_id: z.string(),
  distribution_id: z.string().openapi({ description: "A distribution id from GET /dataset/{name}" }),
  data_model_id: z.string().openapi({ description: "A model id from GET /model" }),
  concept_name: z.string().nullable(),
};
export const ModelInfo = z.object(modelInfoFields).strict().openapi("ModelInfo");

const schemaFields = {
  dataset_id: z.string(),
  distribution_id: z.string().nullable().openapi({ description: "null: the schema of every distribution" }),
  fields: shallowJson(z.array(z.unknown())).openapi({ description: depthNote() }),
};
export const Schema = z.object(schemaFields).strict().openapi("Schema");

const Stamped = { created_at: z.string(), updated_at: z.string() };
export const Replaced = {
  replaced: z.boolean().openapi({ description: "true when it replaced a stored one" }),
};

// What each annotation function returns (core/annotate/*), as `result` of a stored annotation.

const SEMANTIC_TYPES = [
  "empty",
  "boolean",
  "integer",
  "float",
  "latitude",
  "longitude",
  "identifier",
  "datetime",
  "email",
  "url",
  "categorical",
  "text",
  "geometry",
  "array",
  "object",
] as const;
const SemanticType = z.enum(SEMANTIC_TYPES);
const Count = z.number().int();

const SemanticTypesResult = z.object({
  columns: z.array(z.object({
    column: z.string(),
    type: SemanticType,
    confidence: z.number().openapi({ description: "Share of the present values that fit the type" }),
    evidence: z.object({
      present: Count,
      missing: Count,
      distinct: Count,
      matched: Count,
      rule: z.string().openapi({ description: "The rule that decided" }),
      format: z.string().optional(),
      examples: z.array(z.unknown()),
    }),
  })),
}).openapi("SemanticTypesResult", { description: "`semantic_types`: the type of each column" });

const ProfileResult = z.object({
  rows: Count,
  columns: z.array(z.object({
    column: z.string(),
    kind: z.enum(["numeric", "non_numeric", "empty"]),
    count: Count,
    missing: Count,
    distinct: Count,
    numeric: z.object({
      min: z.number(),
      max: z.number(),
      mean: z.number(),
      std: z.number().nullable().openapi({ description: "Sample standard deviation; null for one value" }),
      q1: z.number(),
      median: z.number(),
      q3: z.number(),
    }).optional(),
    outliers: z.object({
      method: z.literal("iqr"),
      k: z.number(),
      lower: z.number(),
      upper: z.number(),
      count: Count,
      examples: z.array(z.object({ row: z.union([z.string(), z.number()]), value: z.number() })),
    }).optional().openapi({ description: "Values outside Tukey's fences (numeric columns)" }),
    top: z.array(z.object({ value: z.unknown(), count: Count })).optional().openapi({
      description: "The most frequent values (other columns)",
    }),
  })),
}).openapi("ProfileResult", { description: "`profile`: counts, and a summary per column" });

const ConceptMappingResult = z.object({
  data_model_id: z.string(),
  columns: z.array(z.object({
    column: z.string(),
    semantic_type: SemanticType,
    candidates: z.array(z.object({
      property: z.string(),
      score: z.number(),
      name_score: z.number(),
      type_score: z.number(),
      description_score: z.number(),
      type: z.string(),
      unit: z.string().optional(),
    })),
  })),
  mapping: z.array(z.object({ column: z.string(), property: z.string(), score: z.number() })).openapi({
    description: "The proposed one-to-one mapping, best scores first",
  }),
  unmapped: z.array(z.string()),
}).openapi("ConceptMappingResult", { description: "`concept_mapping`: candidates and a mapping" });

const PiiScanResult = z.object({
  columns: z.array(z.object({
    column: z.string(),
    present: Count,
    pii: z.boolean(),
    findings: z.array(z.object({
      kind: z.enum(PII_KINDS),
      count: Count,
      share: z.number(),
      examples: z.array(z.string()).openapi({ description: "Masked" }),
    })),
  })),
  flagged: z.array(z.string()).openapi({ description: "The columns with personal data" }),
}).openapi("PiiScanResult", { description: "`pii_scan`: the personal data found per column" });

export const AnnotationRecord = z.object({
  dataset_id: z.string(),
  identifier: z.string(),
  annotation_function: z.string(),
  params: z.record(z.string(), z.unknown()).openapi({
    description: "The parameters the function ran with, defaults applied (GET /procedures describes them)",
  }),
  params_source: z.enum(["request", "configuration", "request+configuration", "defaults"]),
  source: z.enum(["dataset", "inline"]),
  sample_id: z.string().nullable(),
  rows: z.number().int().openapi({ description: "Rows annotated" }),
  truncated: z.boolean().openapi({ description: "The dataset has more rows than the run read" }),
  columns: z.array(z.string()),
  result: z.union([SemanticTypesResult, ProfileResult, ConceptMappingResult, PiiScanResult]).openapi({
    description: "What the function returned, by `annotation_function`",
  }),
  ...Stamped,
}).openapi("Annotation");

export const ConfigurationRecord = z.object({ dataset_id: z.string(), methods: z.unknown(), ...Stamped })
  .openapi("Configuration");
// The stored records: the request's fields and the stamps, as one open object (an extension of the strict
// request schema would be an allOf of two closed objects, which no value satisfies).
export const ModelInfoRecord = z.object({ ...modelInfoFields, ...Stamped }).openapi("ModelInfoRecord");
export const SchemaRecord = z.object({ ...schemaFields, ...Stamped }).openapi("SchemaRecord");

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
  domain: z.string().optional(),
  source: z.string().optional(),
  version: z.string().optional(),
  properties: z.array(z.object({
    name: z.string(),
    type: z.enum(["string", "number", "integer", "boolean", "object", "array"]),
    format: z.string().optional().openapi({ description: "date-time, date, uri, email or geojson" }),
    description: z.string(),
    unit: z.string().optional(),
    enum: z.array(z.union([z.string(), z.number()])).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    required: z.boolean().optional(),
  })),
}).openapi("DataModel");

export const ProcedureOut = z.object({
  name: z.string(),
  description: z.string(),
  parameters: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema of params" }),
  needs_data_model: z.boolean(),
}).openapi("Procedure");
