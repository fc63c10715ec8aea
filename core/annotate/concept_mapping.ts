/**
 * `concept_mapping`: ranks the properties of a data model for each column, so a steward can accept a
 * mapping. score = 0.6 · name + 0.3 · type + 0.1 · description, where
 * - name: the larger of the Sørensen–Dice coefficient over character bigrams of the two names (abbreviations
 *   written out, words run together: `Temp_C` → `temperaturec`) and the Jaccard index of their word sets;
 * - type: 1 when the column's semantic type fits the property's type, 0.5 when it could, 0 otherwise
 *   (latitude and longitude columns fit a GeoJSON location or a number property named so, nothing else);
 * - description: share of the column's words found among the words of the property's description.
 * `mapping` then pairs columns and properties one to one, best score first, down to `min_score`; a GeoJSON
 * property may take one latitude and one longitude column.
 */
import { z } from "zod";
import { ColumnsParam, round4, type Table } from "./table.ts";
import { columnType, type SemanticType, SemanticTypesParams } from "./semantic_types.ts";
import {
  diceSimilarity,
  expandedTokens,
  nameHint,
  normalizedName,
  wordSimilarity,
} from "./name_similarity.ts";
import type { DataModel, ModelProperty } from "./data_model.ts";

export const ConceptMappingParams = z.object({
  columns: ColumnsParam,
  data_model_id: z.string().min(1).describe("The data model to map to (GET /model lists them)"),
  top_k: z.number().int().min(1).max(50).default(3).describe("Candidates listed per column"),
  min_score: z.number().min(0).max(1).default(0.45)
    .describe("Lowest score a candidate may have (0.45: a type fit alone, 0.3, is not enough)"),
}).strict();
export type ConceptMappingParams = z.infer<typeof ConceptMappingParams>;

export const WEIGHTS = { name: 0.6, type: 0.3, description: 0.1 } as const;

export interface Candidate {
  property: string;
  score: number;
  name_score: number;
  type_score: number;
  description_score: number;
  type: string;
  unit?: string;
}

export interface ConceptMapping {
  data_model_id: string;
  columns: { column: string; semantic_type: SemanticType; candidates: Candidate[] }[];
  mapping: { column: string; property: string; score: number }[];
  unmapped: string[];
}

const TYPE_DEFAULTS = SemanticTypesParams.parse({});

/** Ranks the model's properties for every column and proposes a one-to-one mapping. */
export function conceptMapping(table: Table, p: ConceptMappingParams, model: DataModel): ConceptMapping {
  const scored = table.columns.map((col) => {
    const type = columnType(col, TYPE_DEFAULTS).type;
    const all = model.properties
      .map((prop) => scoreProperty(col.name, type, prop))
      .filter((c) => c.score >= p.min_score)
      .sort((a, b) => b.score - a.score);
    return { column: col.name, semantic_type: type, all };
  });
  const geo = new Set(model.properties.filter((q) => q.format === "geojson").map((q) => q.name));
  const pairs = scored
    .flatMap((s) =>
      s.all.map((c) => ({ column: s.column, property: c.property, score: c.score, type: s.semantic_type }))
    )
    .sort((a, b) => b.score - a.score);
  const usedColumns = new Set<string>();
  const usedSlots = new Set<string>();
  const mapping = [];
  for (const { type, ...pair } of pairs) {
    const slot = geo.has(pair.property) ? `${pair.property}#${type}` : pair.property;
    if (usedColumns.has(pair.column) || usedSlots.has(slot)) continue;
    usedColumns.add(pair.column);
    usedSlots.add(slot);
    mapping.push(pair);
  }
  return {
    data_model_id: model.id,
    columns: scored.map(({ all, ...s }) => ({ ...s, candidates: all.slice(0, p.top_k) })),
    mapping,
    unmapped: table.columns.map((c) => c.name).filter((c) => !usedColumns.has(c)),
  };
}

/** How well one property fits a column of the given name and semantic type. */
export function scoreProperty(column: string, type: SemanticType, prop: ModelProperty): Candidate {
  const name = Math.max(
    diceSimilarity(normalizedName(column), normalizedName(prop.name)),
    wordSimilarity(column, prop.name),
  );
  const fit = typeFit(type, prop);
  const words = expandedTokens(column);
  const described = new Set(expandedTokens(prop.description));
  const description = words.length ? words.filter((w) => described.has(w)).length / words.length : 0;
  return {
    property: prop.name,
    score: round4(WEIGHTS.name * name + WEIGHTS.type * fit + WEIGHTS.description * description),
    name_score: round4(name),
    type_score: fit,
    description_score: round4(description),
    type: prop.format ? `${prop.type} (${prop.format})` : prop.type,
    ...(prop.unit && { unit: prop.unit }),
  };
}

/** 1 when a column of this semantic type fits the property, 0.5 when it could, 0 when it cannot. */
export function typeFit(type: SemanticType, prop: ModelProperty): number {
  const f = prop.format;
  switch (prop.type) {
    case "number":
    case "integer": {
      if (type === "latitude" || type === "longitude") return nameHint(prop.name) === type ? 1 : 0;
      if (type === "integer") return 1;
      if (type === "float") return prop.type === "number" ? 1 : 0.5;
      return type === "identifier" || type === "boolean" ? 0.5 : 0;
    }
    case "boolean":
      return type === "boolean" ? 1 : 0;
    case "object":
      if (f === "geojson") return ["geometry", "latitude", "longitude"].includes(type) ? 1 : 0;
      return type === "object" ? 1 : 0;
    case "array":
      return type === "array" ? 1 : 0;
    case "string": {
      if (f === "date-time" || f === "date") return type === "datetime" ? 1 : 0;
      if (f === "uri") return type === "url" ? 1 : type === "identifier" ? 0.5 : 0;
      if (f === "email") return type === "email" ? 1 : 0;
      if (["text", "categorical", "identifier"].includes(type)) return 1;
      return ["email", "url", "datetime", "integer"].includes(type) ? 0.5 : 0;
    }
  }
}
