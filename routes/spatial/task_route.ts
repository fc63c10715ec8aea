/** The definition builder the spatial-hitl routes share (the audit's, the mitigations'): each works on a task. */
import { securedRoute } from "../http/router.ts";
import { errorResponses } from "../http/schemas.ts";
import { TaskNotFound } from "./spatial.schemas.ts";

/**
 * A spatial-hitl route on `{data_collection_name}`: it needs a bearer token, answers 404 for a collection
 * without a task document, and 401 and 422 as every secured route.
 */
export const taskRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) =>
  securedRoute({
    tags: ["spatial-hitl"],
    ...r,
    responses: { ...r.responses, 404: TaskNotFound, ...errorResponses },
  });
