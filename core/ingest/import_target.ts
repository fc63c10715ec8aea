/**
 * The names an import may write to: a database and a collection (the dataset id), never Tessera's own
 * database. Pure rules, so each way in (the HTTP route, `deno task import`, the importer itself) says
 * what is wrong in its own terms: a route names its path parameters, the script its flags.
 */
import { InvalidInputError } from "../errors.ts";

/** Database names an import accepts: MongoDB's length limit, portable characters only. */
export const DATABASE_NAME = /^[A-Za-z0-9_-]{1,63}$/;
/** Collection (dataset) names an import accepts. */
export const COLLECTION_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,119}$/;

/** An import's target names. */
export interface TargetNames {
  db: string;
  collection: string;
}

/** What is wrong with each name (a name that is fine has no entry). */
export type TargetProblems = Partial<Record<keyof TargetNames, string>>;

/** Each name's problem, so a caller can report all of them under its own labels; `{}` when both are fine. */
export function importTargetProblems(target: TargetNames, tesseraDb: string): TargetProblems {
  const out: TargetProblems = {};
  if (!DATABASE_NAME.test(target.db)) {
    out.db = `database name '${target.db}' must be 1 to 63 letters, digits, '_' or '-'`;
  } else if (target.db === tesseraDb) out.db = `database '${target.db}' holds Tessera's own records`;
  if (!COLLECTION_NAME.test(target.collection)) {
    out.collection = `collection name '${target.collection}' must start with a letter or digit, then up ` +
      "to 119 letters, digits, '_', '.' or '-'";
  }
  return out;
}

/** Throws InvalidInputError for the first bad name (database first), at the `loc` the caller gives for it. */
export function checkImportTarget(
  target: TargetNames,
  tesseraDb: string,
  loc: Record<keyof TargetNames, (string | number)[]>,
): void {
  const problems = importTargetProblems(target, tesseraDb);
  for (const name of ["db", "collection"] as const) {
    if (problems[name]) throw new InvalidInputError(problems[name], loc[name]);
  }
}
