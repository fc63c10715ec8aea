/**
 * Typed domain errors. Core throws these; `routes/http/errors.ts` maps each to one HTTP status in
 * `app.onError`, so handlers never pick status codes for failures themselves.
 */

/** The caller named something that does not exist (404). */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/** The request is well-formed but its data cannot be used as asked; `loc` points at the culprit (422). */
export class InvalidInputError extends Error {
  override name = "InvalidInputError";
  constructor(message: string, readonly loc: (string | number)[] = [], readonly type = "value_error") {
    super(message);
  }
}

/** The request clashes with what exists (409). */
export class ConflictError extends Error {
  override name = "ConflictError";
}

/** The input cannot be read at all (400): a malformed upload row, an unknown parameter. */
export class BadRequestError extends Error {
  override name = "BadRequestError";
}

/** A feature is switched off by configuration (503). */
export class DisabledError extends Error {
  override name = "DisabledError";
}

/** Work stopped by its time or work limit before it finished (the message says which limit). */
export class LimitError extends Error {
  override name = "LimitError";
}
