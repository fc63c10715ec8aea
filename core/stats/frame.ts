/**
 * A dataset as typed columns, built batch by batch from stored documents (what pandas'
 * `DataFrame(list(collection.find()))` gave the reference, `_id` dropped): columns in first-seen
 * order, a missing field or null is a gap. Numbers and booleans (as 0/1) make numeric columns;
 * a column with any string becomes text (numbers in it read as their text); arrays and objects
 * make a column nothing can use.
 */
import { type Alloc, localAlloc } from "../memory.ts";
import type { ColumnBatch } from "../columns.ts";

/** A numeric column: NaN marks a gap. `boolean` when every value was true/false. */
export interface NumericColumn {
  name: string;
  kind: "numeric";
  values: Float64Array;
  boolean: boolean;
}

/** A text column as codes into `levels` (in first-seen order); -1 marks a gap. */
export interface TextColumn {
  name: string;
  kind: "text";
  codes: Int32Array;
  levels: string[];
}

/** A column that holds arrays or objects, or only gaps. */
export interface OtherColumn {
  name: string;
  kind: "other";
}

export type Column = NumericColumn | TextColumn | OtherColumn;

export interface Frame {
  rows: number;
  columns: Column[];
}

class Builder {
  kind: "numeric" | "text" | "other" = "numeric";
  values: Float64Array;
  codes = new Int32Array(0);
  levels: string[] = [];
  index = new Map<string, number>();
  seen = 0;
  onlyBoolean = true;
  /** Whether `values` is the column's final buffer (from `alloc`, as long as the rows expected). */
  private final = false;

  /** `expected`: rows the frame should have (0: unknown); `alloc` gives the final buffers. */
  constructor(readonly name: string, private expected: number, private alloc: Alloc) {
    this.values = new Float64Array(expected > 0 ? 0 : 1024).fill(NaN);
  }

  set(row: number, v: unknown): void {
    if (v === null || v === undefined || this.kind === "other") return;
    const t = typeof v;
    if (t === "object") {
      this.kind = "other";
      return;
    }
    this.seen++;
    if (this.kind === "numeric" && (t === "number" || t === "boolean")) {
      this.grow(row);
      this.values[row] = t === "boolean" ? (v ? 1 : 0) : (v as number);
      if (t === "number") this.onlyBoolean = false;
      return;
    }
    if (this.kind === "numeric") this.toText(row);
    this.grow(row);
    this.codes[row] = this.code(t === "string" ? (v as string) : String(v));
  }

  /** Numbers of a batch's column from `row` on (NaN: no value): as `set` of each, in one pass. */
  setNumbers(row: number, values: Float64Array): void {
    if (this.kind !== "numeric") {
      for (let j = 0; j < values.length; j++) if (values[j] === values[j]) this.set(row + j, values[j]);
      return;
    }
    let seen = 0;
    for (let j = 0; j < values.length; j++) if (values[j] === values[j]) seen++;
    if (!seen) return;
    this.grow(row + values.length - 1);
    for (let j = 0; j < values.length; j++) if (values[j] === values[j]) this.values[row + j] = values[j];
    this.seen += seen;
    this.onlyBoolean = false;
  }

  private code(s: string): number {
    let c = this.index.get(s);
    if (c === undefined) {
      c = this.levels.length;
      this.levels.push(s);
      this.index.set(s, c);
    }
    return c;
  }

  /** A string arrived: every number so far becomes its text. */
  private toText(rows: number): void {
    this.kind = "text";
    this.codes = new Int32Array(this.values.length).fill(-1);
    for (let r = 0; r < Math.min(rows, this.values.length); r++) {
      const v = this.values[r];
      if (v === v) this.codes[r] = this.code(this.onlyBoolean ? String(v === 1) : String(v));
    }
    this.values = new Float64Array(0);
  }

  private grow(row: number): void {
    const cap = this.kind === "numeric" ? this.values.length : this.codes.length;
    if (row < cap) return;
    if (this.kind === "numeric" && cap === 0 && row < this.expected) {
      // the first number: the final buffer, allocated only for a column that has numbers
      this.values = new Float64Array(this.alloc(8 * this.expected)).fill(NaN);
      this.final = true;
      return;
    }
    this.final = false; // more rows than expected: copied into a final buffer at the end
    let next = Math.max(1024, cap * 2);
    while (next <= row) next *= 2;
    if (this.kind === "numeric") {
      const v = new Float64Array(next).fill(NaN);
      v.set(this.values);
      this.values = v;
    } else {
      const c = new Int32Array(next).fill(-1);
      c.set(this.codes);
      this.codes = c;
    }
  }

  finish(rows: number, alloc: Alloc): Column {
    if (this.kind === "other" || this.seen === 0) return { name: this.name, kind: "other" };
    if (this.kind === "text") {
      const codes = new Int32Array(alloc(4 * rows)).fill(-1);
      codes.set(this.codes.subarray(0, Math.min(rows, this.codes.length)));
      return { name: this.name, kind: "text", codes, levels: this.levels };
    }
    if (this.final && this.values.length === rows) {
      return { name: this.name, kind: "numeric", values: this.values, boolean: this.onlyBoolean };
    }
    const values = new Float64Array(alloc(8 * rows)).fill(NaN);
    values.set(this.values.subarray(0, Math.min(rows, this.values.length)));
    return { name: this.name, kind: "numeric", values, boolean: this.onlyBoolean };
  }
}

/**
 * Accumulates documents into columns; `finish()` gives the frame, its buffers from `alloc`. Told how many
 * rows to expect (a store that knows its count), a numeric column is written straight into its final
 * buffer: no doubling, no copy at the end (for a whole read of many rows those copies are a large share of
 * its time).
 */
export class FrameBuilder {
  private cols = new Map<string, Builder>();
  private rows = 0;

  constructor(private readonly opts: { expectedRows?: number; alloc?: Alloc } = {}) {}

  private builder(name: string): Builder {
    let b = this.cols.get(name);
    if (!b) {
      this.cols.set(name, b = new Builder(name, this.opts.expectedRows ?? 0, this.opts.alloc ?? localAlloc));
    }
    return b;
  }

  /** Adds one batch of documents, in collection order (`_id` is left out). */
  add(docs: Record<string, unknown>[]): void {
    for (const doc of docs) {
      for (const key in doc) if (key !== "_id") this.builder(key).set(this.rows, doc[key]);
      this.rows++;
    }
  }

  /**
   * Adds the next documents as typed columns (core/columns.ts): the same frame as `add` of those
   * documents, a field of numbers copied in one pass.
   */
  addColumns(batch: ColumnBatch): void {
    for (const [name, column] of batch.fields) {
      const b = this.builder(name);
      if (column.kind === "number") b.setNumbers(this.rows, column.values);
      else if (column.kind === "lists") b.set(this.rows, []); // lists make a column nothing can use
      else batch.values(name).forEach((v, j) => b.set(this.rows + j, v));
    }
    this.rows += batch.n;
  }

  /** The frame, its buffers from the builder's `alloc` (plain ArrayBuffers by default). */
  finish(): Frame {
    const alloc = this.opts.alloc ?? localAlloc;
    return { rows: this.rows, columns: [...this.cols.values()].map((b) => b.finish(this.rows, alloc)) };
  }
}

/** The frame of a list of documents, for tests and small inputs. */
export function frameOf(docs: Record<string, unknown>[]): Frame {
  const b = new FrameBuilder();
  b.add(docs);
  return b.finish();
}
