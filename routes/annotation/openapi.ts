/**
 * How the annotation routes are declared: their router, tag, bearer requirement and error answers.
 */
import { z } from "@hono/zod-openapi";
import { securedRoute } from "../env.ts";
import { errorResponses, json } from "../schemas.ts";

/** A secured route of spec 1, answering 401 and 422 as every route does, and 404 where it says so. */
export const annotationRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) =>
  securedRoute({ ...r, tags: ["annotation"], responses: { ...r.responses, ...errorResponses } });

/** A 404 answer for the OpenAPI document. */
export const notFound = (description: string) => json(z.object({ detail: z.string() }), description);

/** A required JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
