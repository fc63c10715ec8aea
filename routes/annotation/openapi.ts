/**
 * How the annotation routes are declared: their router, tag, bearer requirement and error answers.
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { type AppEnv, securedRoute } from "../env.ts";
import { locRoot, validationResponse, zodToDetail } from "../errors.ts";
import { errorResponses, json } from "../schemas.ts";

/** The value at `path` inside `input`, or undefined when any step of it is absent. */
function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const key of path) {
    v = typeof v === "object" && v !== null ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  }
  return v;
}

/**
 * A router like `newRouter()` whose 422s tell an absent key (`missing`) from one of the wrong type
 * (`string_type`, `list_type`...): zod 4 leaves each issue's input out unless asked, so this puts it back
 * from the validated value before the issues become FastAPI's `detail`. (The same two lines in
 * newRouter's defaultHook would do it for every route.)
 */
export function annotationRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (result.success) return;
      for (const issue of result.error.issues) {
        (issue as { input?: unknown }).input ??= valueAt((result as { data?: unknown }).data, issue.path);
      }
      return validationResponse(c, zodToDetail(result.error, locRoot(result.target)));
    },
  });
}

/** A secured route of spec 1, answering 401 and 422 as every route does, and 404 where it says so. */
export const annotationRoute = <R extends Parameters<typeof securedRoute>[0]>(r: R) =>
  securedRoute({ ...r, tags: ["annotation"], responses: { ...r.responses, ...errorResponses } });

/** A 404 answer for the OpenAPI document. */
export const notFound = (description: string) => json(z.object({ detail: z.string() }), description);

/** A required JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
