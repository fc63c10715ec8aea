/**
 * Typed domain errors. Core throws these (and plain errors for broken invariants, which are bugs); a
 * parameter the data cannot honour is an InvalidParamError, which names the parameter but not where a
 * request carried it: the service locates it (`locateParams`). `routes/http/error_answers.ts` maps each
 * error to one HTTP status in `app.onError`, so handlers never pick status codes for failures themselves.
 */
import type { ZodError } from "zod";

/** The caller named something that does not exist (404). */
export class NotFoundError extends Error {
  override name = "NotFoundError";
}

/**
 * The request's data cannot be used as asked; `loc` points at the culprit (422, 400 on the cleaning routes).
 * The two subclasses below are the refusals that need the stored data to decide (404, 409).
 */
export class InvalidInputError extends Error {
  override name = "InvalidInputError";
  constructor(message: string, readonly loc: (string | number)[] = [], readonly type = "value_error") {
    super(message);
  }
}

/**
 * A well-formed request that names something the store does not hold: a dataset, a column, a data model,
 * a distribution (404, with `loc`). /openapi.json cannot rule it out, so it is no 422.
 */
export class UnknownNameError extends InvalidInputError {
  override name = "UnknownNameError";
}

/**
 * A well-formed request that the stored data does not fit: a collection without documents, a column of
 * the wrong kind, too few rows, a field that is taken (409, with `loc`). /openapi.json cannot rule it out.
 */
export class DataMismatchError extends InvalidInputError {
  override name = "DataMismatchError";
}

/**
 * A parameter the data at hand cannot honour (a mapped field missing from the documents, a target that is
 * not a column, equal_opp without y_true): a rule only the data can decide, found in core, which does not
 * know where the parameter came from. `param` names it by its spec name, as a path (`["mapping", "y_pred"]`,
 * `["params", "columns", 2]`); the service that passed it puts it in its place in the request (`locateParams`).
 */
export class InvalidParamError extends Error {
  override name = "InvalidParamError";
  constructor(message: string, readonly param: (string | number)[], readonly type = "value_error") {
    super(message);
  }
}

/** A parameter that names something the data does not hold (located: an UnknownNameError, 404). */
export class UnknownParamError extends InvalidParamError {
  override name = "UnknownParamError";
}

/** A parameter the stored data does not fit (located: a DataMismatchError, 409). */
export class ParamMismatchError extends InvalidParamError {
  override name = "ParamMismatchError";
}

/**
 * `work`'s result; an InvalidParamError it throws comes out as the InvalidInputError of the request field
 * that carried the parameter, `at(param)` (its `loc`): how a service attaches locations to core's errors.
 */
export async function locateParams<T>(
  at: (param: (string | number)[]) => (string | number)[],
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof InvalidParamError) {
      const As = e instanceof UnknownParamError
        ? UnknownNameError
        : e instanceof ParamMismatchError
        ? DataMismatchError
        : InvalidInputError;
      throw new As(e.message, at(e.param), e.type);
    }
    throw e;
  }
}

/**
 * A value that failed its own zod schema below the edge (a cleaning method's parameters, a schema the
 * request itself chooses): reported as that schema's issues under `loc`, an unknown key naming `allowed`.
 */
export interface SchemaProblem {
  loc: (string | number)[];
  error: ZodError;
  /** The value the schema read (tells an absent key from one of the wrong type). */
  input: unknown;
  /** The keys the schema takes, named when it refuses an unknown one (absent: the refusal alone). */
  allowed?: string[];
}

/**
 * Several problems of one request, all reported at once and in this order: a 422, or a 400 where the
 * spec says so (cleaning jobs).
 */
export class InvalidInputsError extends Error {
  override name = "InvalidInputsError";
  constructor(readonly problems: (InvalidInputError | SchemaProblem)[]) {
    super(
      problems.map((p) =>
        `${p.loc.join(".")}: ${p instanceof InvalidInputError ? p.message : p.error.message}`
      ).join("; "),
    );
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

/** Work a person cancelled before it finished (409): nothing of it was kept; `runId` names its run. */
export class CancelledError extends Error {
  override name = "CancelledError";
  constructor(message: string, readonly runId: string) {
    super(message);
  }
}
