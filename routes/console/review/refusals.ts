/** How the review turns a service's refusal into words on the page. */
import { problemItems, type ValidationItem } from "../../http/error_answers.ts";
import { InvalidInputError, InvalidInputsError } from "../../../core/errors.ts";

/** The 422 items of a refused request (null for any other error). */
export function invalidItems(e: unknown): ValidationItem[] | null {
  if (e instanceof InvalidInputError) return [{ loc: e.loc, msg: e.message, type: e.type }];
  if (e instanceof InvalidInputsError) return problemItems(e.problems);
  return null;
}

/** A service's message as a sentence ("run not found" → "Run not found."). */
export const asSentence = (message: string) => `${message[0].toUpperCase()}${message.slice(1)}.`;

/** What the page says of a mitigation cancelled while it ran. */
export const CANCELLED = "The mitigation was cancelled before it finished: nothing of it was kept.";
