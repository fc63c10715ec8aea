/**
 * A data model annotation can map to: an entity of a vocabulary (a Smart Data Model such as
 * WeatherObserved, a schema.org type such as Place) and its properties. Catalogue files hold one each.
 */
import { z } from "zod";

export const ModelProperty = z.object({
  name: z.string().min(1),
  type: z.enum(["string", "number", "integer", "boolean", "object", "array"]),
  format: z.string().optional().describe("date-time, date, uri, email or geojson"),
  description: z.string().default(""),
  unit: z.string().optional(),
  enum: z.array(z.union([z.string(), z.number()])).optional(),
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  required: z.boolean().optional(),
}).strict();
export type ModelProperty = z.infer<typeof ModelProperty>;

export const DataModel = z.object({
  id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/),
  name: z.string().min(1),
  description: z.string(),
  vocabulary: z.string().min(1),
  domain: z.string().optional(),
  source: z.url().optional(),
  version: z.string().optional(),
  properties: z.array(ModelProperty).min(1),
}).strict();
export type DataModel = z.infer<typeof DataModel>;
