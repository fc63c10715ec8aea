/**
 * Which rows a run annotates, from `sample_id`: one record by id, or a named sample: `head:N` (the first
 * N rows) or `random:N[:SEED]` (N rows drawn uniformly, seeded, default seed 0), returned in stored order.
 */
import { InvalidParamError, NotFoundError } from "../errors.ts";
import { Rng } from "../random.ts";

export type Selection =
  | { kind: "all" }
  | { kind: "record"; id: string }
  | { kind: "head"; n: number }
  | { kind: "random"; n: number; seed: number };

const NAMED = /^(head|random):(\d+)(?::(\d+))?$/;

/** Reads `sample_id`; a named sample larger than `cap` rows is an InvalidParamError. */
export function parseSampleId(sampleId: string | null | undefined, cap: number): Selection {
  if (sampleId === null || sampleId === undefined) return { kind: "all" };
  const m = NAMED.exec(sampleId);
  if (!m) return { kind: "record", id: sampleId };
  const n = Number(m[2]);
  if (n < 1 || n > cap || (m[1] === "head" && m[3] !== undefined)) {
    throw new InvalidParamError(
      `a named sample is head:N or random:N[:SEED] with 1 ≤ N ≤ ${cap}`,
      ["sample_id"],
    );
  }
  return m[1] === "head" ? { kind: "head", n } : { kind: "random", n, seed: Number(m[3] ?? 0) };
}

/** Uniform sampling of n items from a stream of unknown length, in one pass (Algorithm R), seeded. */
export class Reservoir<T> {
  private kept: { at: number; item: T }[] = [];
  private seen = 0;
  private rng: Rng;

  constructor(private n: number, seed: number) {
    this.rng = new Rng(seed);
  }

  /** Offers the next item of the stream. */
  offer(item: T): void {
    const at = this.seen++;
    if (this.kept.length < this.n) this.kept.push({ at, item });
    else {
      const j = this.rng.int(this.seen);
      if (j < this.n) this.kept[j] = { at, item };
    }
  }

  /** The sample, in the order the items came. */
  items(): T[] {
    return [...this.kept].sort((a, b) => a.at - b.at).map((e) => e.item);
  }
}

/** Applies a selection to rows held in memory (inline `data`/`items`); a record is found by `_id` or `id`. */
export function selectRows<R extends Record<string, unknown>>(rows: R[], s: Selection, cap: number): R[] {
  switch (s.kind) {
    case "all":
      return rows.slice(0, cap);
    case "head":
      return rows.slice(0, s.n);
    case "record": {
      const found = rows.find((r) => String(r._id ?? r.id) === s.id);
      if (!found) throw new NotFoundError(`no record '${s.id}' among the inline rows (matched on _id or id)`);
      return [found];
    }
    case "random": {
      const r = new Reservoir<R>(s.n, s.seed);
      for (const row of rows) r.offer(row);
      return r.items();
    }
  }
}

/**
 * The rows of a request's inline `data` (one record, or a list) or `items` (a list); null when it has
 * neither, so the stored dataset is read. Both at once, an empty list or a non-object row is an InvalidParamError.
 */
export function inlineRows(data: unknown, items: unknown): Record<string, unknown>[] | null {
  const given = (v: unknown) => v !== undefined && v !== null;
  if (given(data) && given(items)) {
    throw new InvalidParamError("give data or items, not both", ["items"]);
  }
  const field = given(data) ? "data" : given(items) ? "items" : null;
  if (!field) return null;
  const value = field === "data" ? data : items;
  const rows = field === "data" && isRecord(value) ? [value] : value;
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new InvalidParamError(
      field === "data"
        ? "data is one record (an object) or a non-empty list of records"
        : "items is a non-empty list of records",
      [field],
    );
  }
  const bad = rows.findIndex((r) => !isRecord(r));
  if (bad >= 0) throw new InvalidParamError("a record is a JSON object", [field, bad], "dict_type");
  return rows;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
