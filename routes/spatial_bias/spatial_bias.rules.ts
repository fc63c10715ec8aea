/**
 * The edge's check of a toolkit body the worker has read (services/spatial_bias/read_body.ts): its other
 * fields against the request's schema and its individuals' issues, reported together in FastAPI's shape;
 * then the toolkit's rules over several fields, each named by the `loc` of the individual that breaks it.
 */
import { z } from "@hono/zod-openapi";
import type { SetFacts, ToolkitRead } from "../../core/spatial/toolkit_individuals.ts";
import type { LoadedColumns } from "../../core/spatial/loaded_columns.ts";
import type { Ring } from "../../core/spatial/types.ts";
import { InvalidInputError, InvalidInputsError, type SchemaProblem } from "../../core/errors.ts";
import type { ToolkitKind } from "../../services/spatial_bias/read_body.ts";
import { shellOf } from "./spatial_bias.schemas.ts";

type Shell<K extends ToolkitKind> = z.infer<typeof shellOf[K]>;

/** A body that passed: its fields (defaults filled), its individuals' columns, its sets and its polygons. */
export interface CheckedBody<K extends ToolkitKind> {
  body: Shell<K>;
  columns: LoadedColumns;
  sets: SetFacts[];
  /** The regions' polygons (null: none, or an empty list). */
  polygons: Ring[] | null;
}

/** Checks `read`, the body of a `kind` request: a 422 naming every problem, or the body. */
export function checkToolkitBody<K extends ToolkitKind>(read: ToolkitRead, kind: K): CheckedBody<K> {
  if (read.jsonError) throw new InvalidInputError("JSON decode error", ["body"], "json_invalid");
  const parsed = shellOf[kind].safeParse(read.rest);
  const problems: SchemaProblem[] = [];
  if (!parsed.success) problems.push({ loc: ["body"], error: parsed.error, input: read.rest });
  if (read.issues.length) {
    problems.push({ loc: ["body"], error: new z.ZodError(read.issues), input: undefined });
  }
  if (problems.length) throw new InvalidInputsError(problems);
  const body = parsed.data as Shell<K>;
  const polygons = polygonsOf(body);
  const broken = [...crossRules(body, read.sets, polygons), ...predictRegions(body)];
  if (broken.length) throw new InvalidInputsError(broken);
  return { body, columns: read.columns!, sets: read.sets, polygons };
}

type Regions = { polygon: Ring }[] | null | undefined;

/** The polygons of region_info, else (threshold) of predict_region_info; an empty list is none. */
function polygonsOf(body: { region_info?: Regions; predict_region_info?: Regions }): Ring[] | null {
  const list = body.region_info?.length ? body.region_info : body.predict_region_info;
  return list?.length ? list.map((r) => r.polygon) : null;
}

/** The threshold's predict_region_info, when given beside region_info, must be the same list. */
function predictRegions(body: { region_info?: Regions; predict_region_info?: Regions }): InvalidInputError[] {
  const { region_info: fit, predict_region_info: predict } = body;
  if (!fit?.length || !predict?.length || JSON.stringify(fit) === JSON.stringify(predict)) return [];
  return [
    new InvalidInputError(
      "Value error, a threshold is a region's, so the predict set is read over the fit set's regions: " +
        "predict_region_info must be the same list as region_info, or left out",
      ["body", "predict_region_info"],
    ),
  ];
}

/** The rules over fields: y_true under equal_opp, coordinates or region ids for all, ids within region_info. */
function crossRules(
  body: { equal_opp: boolean },
  sets: SetFacts[],
  polygons: Ring[] | null,
): InvalidInputError[] {
  const out: InvalidInputError[] = [];
  for (const s of sets) {
    if (body.equal_opp && s.firstWithoutYTrue >= 0) {
      out.push(
        new InvalidInputError(
          "Field required: equal_opp is true (the default), so every individual needs y_true",
          ["body", s.field, s.firstWithoutYTrue, "y_true"],
          "missing",
        ),
      );
    }
  }
  const noCoords = sets.find((s) => s.firstWithoutCoords >= 0);
  const noIds = sets.find((s) => s.firstWithoutRegionIds >= 0);
  if (noCoords && noIds) {
    out.push(
      new InvalidInputError(
        "Value error, every individual needs coordinates (lat and lon), or every individual region_ids: " +
          `${noIds.field}[${noIds.firstWithoutRegionIds}] has no region_ids and ` +
          `${noCoords.field}[${noCoords.firstWithoutCoords}] no coordinates`,
        ["body", noIds.field, noIds.firstWithoutRegionIds],
      ),
    );
  }
  if (polygons && !noIds) {
    for (const s of sets) {
      if (s.maxRegionId && s.maxRegionId.id >= polygons.length) {
        const [i, k] = s.maxRegionId.at;
        out.push(
          new InvalidInputError(
            `Value error, region id ${s.maxRegionId.id} indexes no polygon of region_info ` +
              `(${polygons.length} polygons, ids 0..${polygons.length - 1})`,
            ["body", s.field, i, "region_ids", k],
          ),
        );
      }
    }
  }
  return out;
}
