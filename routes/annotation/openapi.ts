/**
 * How the annotation routes are declared: their router, tag, bearer requirement and error answers.
 */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../http/router.ts";
import { errorResponses, json } from "../http/schemas.ts";

const { 401: unauthorized, 422: invalid } = errorResponses;

/**
 * A secured route of spec 1: it answers 401 as every route does, 422 only when it takes a path
 * parameter, a query or a body (the spec declares none for GET /procedures, /model and /dataset, which
 * have nothing to validate), and 404 where the route says so.
 */
export const annotationRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) => {
  const validated = Boolean(r.request?.params || r.request?.query || r.request?.body);
  return securedRoute({
    ...r,
    tags: ["annotation"],
    responses: { ...r.responses, 401: unauthorized, ...(validated && { 422: invalid }) },
  });
};

/** A 404 answer for the OpenAPI document. */
export const notFound = (description: string) => json(z.object({ detail: z.string() }), description);

/** A required JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
