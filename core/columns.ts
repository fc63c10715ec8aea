/**
 * A batch of documents as typed columns: what a builder of core (the audit's columns, core/spatial/load.ts;
 * the valuation's frame, core/stats/frame.ts) copies in bulk instead of walking documents. Whoever holds
 * documents field by field hands them over this way (a store's column pages: workers/tasks/dataset.ts),
 * sharing their arrays; core never sees how they were stored.
 */

/** A field whose values are numbers (NaN where a document has none, or null). */
export interface NumberColumn {
  kind: "number";
  values: Float64Array;
}

/** A field whose values are all non-empty lists of 32-bit non-negative integers (region ids). */
export interface ListColumn {
  kind: "lists";
  /** Document j's list is `items[start[j] .. start[j+1])`. */
  start: Int32Array;
  items: Int32Array | Uint16Array;
}

/** Any other field: its values only as `ColumnBatch.values` decodes them. */
export interface OtherColumn {
  kind: "other";
}

export type TypedColumn = NumberColumn | ListColumn | OtherColumn;

export interface ColumnBatch {
  /** Documents in the batch. */
  n: number;
  /** Their ids, in order. */
  ids: readonly string[];
  /** Every field a document of the batch has (`_id` aside), in first-seen order. */
  fields: ReadonlyMap<string, TypedColumn>;
  /**
   * Each document's value of `name`, null where it has none (numbers as numbers, lists as arrays), decoded
   * on demand: a builder asks only for a field its typed column cannot give it.
   */
  values(name: string): unknown[];
}
