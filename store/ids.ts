/** Document ids: ObjectId hex strings, so ids sort by creation time and match MongoDB's own. */
import { ObjectId } from "bson";

/** A fresh id that sorts after every id this process made before it. */
export function newId(): string {
  return new ObjectId().toHexString();
}
