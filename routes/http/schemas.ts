/** Response schemas shared by every route group. */
import { z } from "@hono/zod-openapi";

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

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

/** The error answers a secured route may give, for the OpenAPI document. */
export const errorResponses = {
  401: json(ErrorBody, "Missing or invalid bearer token"),
  422: json(HTTPValidationError, "Validation Error"),
};

export { json };
