/** Request and answer of `mitigate/relabel/frontier`: relabel's fields with `budgets` for `budget_constr`. */
import { z } from "@hono/zod-openapi";
import { auditFields, runIdField, withAuditRules } from "../spatial/spatial.schemas.ts";
import { mitigationFields, RelabelRequest, toRelabelSettings } from "./mitigation.schemas.ts";
import type { FrontierInput } from "../../services/mitigation/frontier.ts";

/** Most budgets one frontier runs (each is a relabel, kept as a run). */
export const MAX_BUDGETS = 20;

const { budget_constr: budgetConstr, ...solverFields } = mitigationFields;

export const FrontierRequest = withAuditRules(
  z.object({
    ...solverFields,
    flip_order: RelabelRequest.shape.flip_order,
    include_maps: auditFields.include_maps.unwrap().default(false).openapi({
      description: "true: each point carries its maps (flips, after-audit) in `maps`; the runs keep them " +
        "either way",
    }),
    budgets: z.array(budgetConstr.unwrap()).min(1).max(MAX_BUDGETS).openapi({
      description:
        `1 to ${MAX_BUDGETS} flip budgets, each as budget_constr reads it (a value ≤ 1 a fraction ` +
        "of the individuals in scope, > 1 an absolute count); run ascending, each value once",
    }),
  }).strict(),
).openapi("FrontierRequest");
export type FrontierRequest = z.infer<typeof FrontierRequest>;

/** The service's input of a validated frontier body: relabel's settings, budgets for budget_constr. */
export function toFrontierSettings(
  body: FrontierRequest,
): Omit<FrontierInput, "collectionName" | "requestedBy"> {
  const { budget: _, ...relabel } = toRelabelSettings({ ...body, budget_constr: 0 });
  return { ...relabel, budgets: body.budgets };
}

const count = z.number().int();

export const FrontierPoint = z.object({
  budget_constr: z.number(),
  flip_budget: count.openapi({ description: "C, the most flips allowed (as relabel's flip_budget)" }),
  solver_status_code: count,
  objective: z.number().nullable(),
  bound: z.number().nullable(),
  gap: z.number().nullable(),
  n_flips: count,
  sbi_after: z.number().openapi({ description: "sbi_score of the audit after the flips" }),
  total_signif_regions_after: count,
  accuracy_after: z.number().nullable().openapi({ description: "null without y_true" }),
  positive_rate_after: z.number(),
  solver_seconds: z.number(),
  elapsed_ms: z.number(),
  run_id: runIdField,
  maps: z.record(z.string(), z.unknown()).optional().openapi({
    description: "with include_maps: the point's flips map and its after-audit's maps",
  }),
}).openapi("FrontierPoint");

export const FrontierResponse = z.object({
  budgets: z.array(z.number()).openapi({ description: "the budgets run: ascending, each once" }),
  sbi_before: z.number(),
  total_signif_regions_before: count,
  accuracy_before: z.number().nullable(),
  points: z.array(FrontierPoint).openapi({ description: "one per budget, in the order of `budgets`" }),
  elapsed_ms: z.number(),
}).openapi("FrontierResponse");
