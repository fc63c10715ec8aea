/** Response schemas and OpenAPI helpers shared by every area. */
import { z } from "@hono/zod-openapi";
import { MAX_JSON_DEPTH, tooDeepAt, tooDeepMessage } from "../../core/json_depth.ts";

export const ErrorBody = z.object({ detail: z.unknown() }).openapi("Error");

export const ValidationError = z
  .object({
    loc: z.array(z.union([z.string(), z.number().int()])),
    msg: z.string(),
    type: z.string(),
  })
  .openapi("ValidationError");

export const HTTPValidationError = z.object({ detail: z.array(ValidationError) }).openapi(
  "HTTPValidationError",
);

/**
 * A `{detail}` answer: a message, or (a refusal the stored data decides: a 404 naming a dataset, column or
 * model that does not exist, a 409 the data does not fit) the items naming the request's fields.
 */
export const Detail = z.object({ detail: z.union([z.string(), z.array(ValidationError)]) }).openapi("Detail");

/** A documented JSON answer. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** A documented `{detail}` answer (a 404, a 409), for the OpenAPI document. */
export const detailResponse = (description: string) => json(Detail, description);

/** A required JSON request body. */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

/** The error answers a secured route may give, for the OpenAPI document. */
export const errorResponses = {
  401: json(ErrorBody, "Missing or invalid bearer token"),
  403: json(ErrorBody, "The caller's role is below the one the route needs"),
  422: json(HTTPValidationError, "Validation Error"),
};

/** What a free-form JSON field's description says of its depth (core/json_depth.ts). */
export const depthNote = (max = MAX_JSON_DEPTH) => `At most ${max} levels of nested objects and arrays.`;

/**
 * Free JSON nested at most `max` levels deep (core/json_depth.ts): deeper is a 422 at the field, its
 * message naming where inside it; the store and the worker pool never see it.
 */
export function shallowJson<T extends z.ZodType>(schema: T, max = MAX_JSON_DEPTH): T {
  return schema.superRefine((value, ctx) => {
    const path = tooDeepAt(value, max);
    if (path) ctx.addIssue({ code: "custom", message: tooDeepMessage(path, max) });
  }) as T;
}
