/**
 * The annotation functions `POST /annotations` can run, by name, each with its description and its
 * parameter schema (zod; `GET /procedures` shows it as JSON Schema).
 */
import { z } from "zod";
import type { Table } from "./table.ts";
import type { DataModel } from "./data_model.ts";
import { semanticTypes, SemanticTypesParams } from "./semantic_types.ts";
import { profile, ProfileParams } from "./profile.ts";
import { type ConceptMapping, conceptMapping, ConceptMappingParams } from "./concept_mapping.ts";
import { piiScan, PiiScanParams } from "./pii_scan.ts";

/** What a run returns: the result of one of the functions below. */
export type AnnotationResult =
  | ReturnType<typeof semanticTypes>
  | ReturnType<typeof profile>
  | ConceptMapping
  | ReturnType<typeof piiScan>;

/** What a function may need besides the rows: the data model named by its parameters. */
export interface RunContext {
  model?: DataModel;
}

export interface Procedure<P extends { columns?: string[] } = { columns?: string[] }> {
  name: string;
  description: string;
  params: z.ZodType<P>;
  /** The data model a run needs, from its parameters (only functions that map to a model). */
  modelId?: (params: P) => string;
  run(table: Table, params: P, ctx: RunContext): AnnotationResult;
}

const define = <P extends { columns?: string[] }>(p: Procedure<P>) => p as unknown as Procedure;

export const PROCEDURES: readonly Procedure[] = [
  define({
    name: "semantic_types",
    description: "Per column, the semantic type (integer, float, boolean, datetime, categorical, text, " +
      "identifier, email, url, latitude, longitude, geometry, ...) with a confidence (the share of values " +
      "that fit it) and the evidence (counts, the rule that decided, examples).",
    params: SemanticTypesParams,
    run: semanticTypes,
  }),
  define({
    name: "profile",
    description: "Per column: count, missing, distinct; for numeric columns min, max, mean, std, quartiles " +
      "and IQR outliers; for other columns the most frequent values.",
    params: ProfileParams,
    run: profile,
  }),
  define({
    name: "concept_mapping",
    description: "Ranks the properties of a data model (params.data_model_id) for each column by name, " +
      "type and description similarity, with scores, and proposes a one-to-one mapping to accept.",
    params: ConceptMappingParams,
    modelId: (p) => p.data_model_id,
    run: (table, p, ctx) => conceptMapping(table, p, ctx.model!),
  }),
  define({
    name: "pii_scan",
    description: "Flags columns holding e-mail addresses, phone numbers, IBANs, IP addresses or personal " +
      "names, with counts and masked examples.",
    params: PiiScanParams,
    run: piiScan,
  }),
];

/** The procedure of that name, or undefined. */
export const findProcedure = (name: string): Procedure | undefined => PROCEDURES.find((p) => p.name === name);

/** Every procedure as `GET /procedures` lists it: name, description, parameters as JSON Schema. */
export function describeProcedures() {
  return PROCEDURES.map((p) => ({
    name: p.name,
    description: p.description,
    parameters: z.toJSONSchema(p.params, { io: "input" }),
    needs_data_model: p.modelId !== undefined,
  }));
}
