/**
 * Builds the typed columns of an audit from a collection's documents, once, batch by batch, and
 * refuses data a reviewer must fix first with an InvalidParamError that says what is wrong and how often.
 */
import { ParamMismatchError } from "../errors.ts";
import { type Alloc, localAlloc } from "../memory.ts";
import { own } from "../data_keys.ts";
import type { ColumnBatch, ListColumn } from "../columns.ts";
import type { Individuals } from "./types.ts";
import type { Mapping, MappingKey } from "./mapping.ts";
import { column, Growable, RegionIds } from "./growing_columns.ts";
import { type LoadedColumns, type LoadNeeds, requireNeeds } from "./loaded_columns.ts";

/** A mapped field as the request names it (its `mapping` key). */
const param = (key: MappingKey) => ["mapping", key];

/** Accumulates documents into columns; `finish()` validates presence and returns the Individuals. */
export class IndividualsBuilder {
  private docIds: string[] = [];
  private cols = {
    y_pred: column(),
    y_true: column(),
    lat: column(),
    lon: column(),
    y_pred_prob: column(),
  };
  /** Region ids flattened as they are read: individual i has ids[start[i] .. start[i+1]). */
  private regionStart = new Growable(new Int32Array(1024));
  private regionIds = new RegionIds();
  private missing: Record<MappingKey, number> = {
    lat: 0,
    lon: 0,
    y_true: 0,
    y_pred: 0,
    region_ids: 0,
    y_pred_prob: 0,
  };

  /** `explicit`: the keys the request mapped itself; their fields must be in every document. */
  constructor(private mapping: Mapping, private explicit: readonly MappingKey[] = []) {
    this.regionStart.push(0);
  }

  /** The projection to ask the store for: only the mapped fields. */
  fields(): string[] {
    return [...new Set(Object.values(this.mapping))];
  }

  /** Adds one batch of documents, in collection order. */
  add(docs: { _id: string; [k: string]: unknown }[]): void {
    for (const d of docs) {
      const i = this.docIds.length;
      this.docIds.push(d._id);
      this.binary("y_pred", this.value(own(d, this.mapping.y_pred), "y_pred"), i);
      this.binary("y_true", this.value(own(d, this.mapping.y_true), "y_true"), i);
      this.coordinate("lat", this.value(own(d, this.mapping.lat), "lat"), 90, i);
      this.coordinate("lon", this.value(own(d, this.mapping.lon), "lon"), 180, i);
      this.probability(this.value(own(d, this.mapping.y_pred_prob), "y_pred_prob"), i);
      this.regions(this.value(own(d, this.mapping.region_ids), "region_ids"), i);
    }
  }

  /**
   * Adds the next documents as typed columns (core/columns.ts): the same columns, counts and errors as
   * `add` of those documents, the region id lists copied whole.
   */
  addColumns(batch: ColumnBatch): void {
    const { fields } = batch, first = this.docIds.length;
    if (this.addTyped(batch)) return;
    const reader = (key: MappingKey): (j: number) => unknown => {
      const name = this.mapping[key], c = fields.get(name);
      if (name === "_id") return (j) => batch.ids[j];
      if (c?.kind === "number") {
        return (j) => {
          const v = c.values[j];
          return v === v ? v : null; // NaN: none (a stored number is never NaN)
        };
      }
      const values = batch.values(name); // decoded: other values, id lists as arrays, a field lacking as nulls
      return (j) => values[j];
    };
    const [yPred, yTrue, lat, lon, prob] = (["y_pred", "y_true", "lat", "lon", "y_pred_prob"] as const).map(
      reader,
    );
    const lists = fields.get(this.mapping.region_ids);
    const regions = lists?.kind === "lists" ? null : reader("region_ids");
    for (let j = 0; j < batch.n; j++) {
      const i = first + j;
      this.docIds.push(batch.ids[j]);
      this.binary("y_pred", this.value(yPred(j), "y_pred"), i);
      this.binary("y_true", this.value(yTrue(j), "y_true"), i);
      this.coordinate("lat", this.value(lat(j), "lat"), 90, i);
      this.coordinate("lon", this.value(lon(j), "lon"), 180, i);
      this.probability(this.value(prob(j), "y_pred_prob"), i);
      if (regions) this.regions(this.value(regions(j), "region_ids"), i);
    }
    // every document has a non-empty list of 32-bit ids (what a list column holds): copied as they are
    if (!regions && lists?.kind === "lists") this.copyLists(lists, batch.n);
  }

  /**
   * The usual batch in bulk: every mapped scalar field a column of numbers (or absent), the region ids a
   * list column of 32-bit ids (or absent), every value valid. False, with nothing added, otherwise: the
   * batch then goes row by row, and its first invalid value is the error `add` would give.
   */
  private addTyped(batch: ColumnBatch): boolean {
    const { n, fields } = batch;
    const scalar = (key: MappingKey, ok: (v: number) => boolean): Float64Array | null | false => {
      const name = this.mapping[key], c = fields.get(name);
      if (name === "_id" || (c && c.kind !== "number")) return false;
      if (!c) return null;
      for (let j = 0; j < n; j++) if (c.values[j] === c.values[j] && !ok(c.values[j])) return false;
      return c.values;
    };
    const binary = (v: number) => v === 0 || v === 1;
    const cols = [
      ["y_pred", scalar("y_pred", binary)],
      ["y_true", scalar("y_true", binary)],
      ["lat", scalar("lat", (v) => Math.abs(v) <= 90)],
      ["lon", scalar("lon", (v) => Math.abs(v) <= 180)],
      ["y_pred_prob", scalar("y_pred_prob", (v) => v >= 0 && v <= 1)],
    ] as const;
    const name = this.mapping.region_ids, lists = fields.get(name);
    const listsOk = !lists || lists.kind === "lists";
    if (cols.some(([, v]) => v === false) || name === "_id" || !listsOk) return false;
    for (let j = 0; j < n; j++) this.docIds.push(batch.ids[j]);
    for (const [key, values] of cols) {
      const col = this.cols[key], at = col.n;
      col.reserve(n);
      if (values) col.buf.set(values, at);
      else col.buf.fill(NaN, at, at + n);
      col.n += n;
      let missing = 0;
      for (let j = at; j < at + n; j++) if (col.buf[j] !== col.buf[j]) missing++;
      this.missing[key] += missing;
    }
    if (lists?.kind === "lists") this.copyLists(lists, n);
    else {
      this.missing.region_ids += n;
      this.regionStart.reserve(n);
      for (let j = 0; j < n; j++) this.regionStart.buf[this.regionStart.n++] = this.regionIds.total;
    }
    return true;
  }

  /** A batch's list column of region ids appended as it is (every list non-empty, every id 32-bit). */
  private copyLists(lists: ListColumn, n: number): void {
    const at = this.regionIds.total;
    this.regionStart.reserve(n);
    for (let j = 1; j <= n; j++) this.regionStart.buf[this.regionStart.n++] = at + lists.start[j];
    this.regionIds.append(lists.items);
  }

  /** A value as the columns see it: null when missing (undefined or null), counted as such. */
  private value(v: unknown, key: MappingKey): unknown {
    if (v === undefined || v === null) {
      this.missing[key]++;
      return null;
    }
    return v;
  }

  private binary(key: "y_pred" | "y_true", v: unknown, i: number): void {
    if (v === null) return this.cols[key].push(NaN);
    const n = typeof v === "boolean" ? Number(v) : v;
    if (n !== 0 && n !== 1) {
      throw new ParamMismatchError(
        `field '${this.mapping[key]}' (mapped to ${key}) must be 0 or 1; document ${
          this.docIds[i]
        } (position ${i}) has ${JSON.stringify(v)}`,
        param(key),
      );
    }
    this.cols[key].push(n);
  }

  private coordinate(key: "lat" | "lon", v: unknown, bound: number, i: number): void {
    if (v === null) return this.cols[key].push(NaN);
    if (typeof v !== "number" || !(Math.abs(v) <= bound)) {
      throw new ParamMismatchError(
        `field '${this.mapping[key]}' (mapped to ${key}) must be a number in [-${bound}, ${bound}]; ` +
          `document ${this.docIds[i]} (position ${i}) has ${JSON.stringify(v)}`,
        param(key),
      );
    }
    this.cols[key].push(v);
  }

  private probability(v: unknown, i: number): void {
    if (v === null) return this.cols.y_pred_prob.push(NaN);
    if (typeof v !== "number" || !(v >= 0 && v <= 1)) {
      throw new ParamMismatchError(
        `field '${this.mapping.y_pred_prob}' (mapped to y_pred_prob) must be a probability in [0, 1]; ` +
          `document ${this.docIds[i]} (position ${i}) has ${JSON.stringify(v)}`,
        param("y_pred_prob"),
      );
    }
    this.cols.y_pred_prob.push(v);
  }

  private regions(v: unknown, i: number): void {
    if (v === null) return this.regionStart.push(this.regionIds.total);
    const list = Array.isArray(v) ? v : [v];
    let int32 = true; // and so every id fits the 32-bit column as it is
    for (let j = 0; j < list.length && int32; j++) int32 = (list[j] | 0) === list[j] && list[j] >= 0;
    if (int32 && list.length && !this.regionIds.wide) {
      this.regionIds.pushInt32(list);
      return this.regionStart.push(this.regionIds.total);
    }
    if (!list.length || !list.every((r) => Number.isInteger(r) && r >= 0)) {
      throw new ParamMismatchError(
        `field '${this.mapping.region_ids}' (mapped to region_ids) must be a non-empty list of non-negative ` +
          `integers; document ${this.docIds[i]} (position ${i}) has ${JSON.stringify(v)}`,
        param("region_ids"),
      );
    }
    this.regionIds.pushAny(list as number[]);
    this.regionStart.push(this.regionIds.total);
  }

  /**
   * The Individuals, after checking that every required slot, and every slot the request mapped, is
   * filled for every document.
   */
  finish(needs: LoadNeeds): Individuals {
    return requireNeeds(this.columns(), needs);
  }

  /**
   * The columns read so far, with what each mapped field missed, their memory from `alloc` (shared, so
   * the columns kept go to every worker without a copy);
   * a collection without documents is an InvalidParamError (data_collection_name).
   */
  columns(alloc: Alloc = localAlloc): LoadedColumns {
    const n = this.docIds.length;
    if (n === 0) {
      throw new ParamMismatchError("the task's collection holds no documents", ["data_collection_name"]);
    }
    const complete = (key: MappingKey) => this.missing[key] === 0;
    const bytes = (g: Growable) => {
      const out = new Uint8Array(alloc(n)); // a gap (NaN) becomes 0, as Uint8Array.from makes it
      for (let j = 0; j < n; j++) out[j] = g.buf[j];
      return out;
    };
    const doubles = (g: Growable) => {
      const out = new Float64Array(alloc(8 * n));
      out.set(g.buf.subarray(0, n));
      return out;
    };
    const start = () => {
      const out = new Int32Array(alloc(4 * (n + 1)));
      out.set(this.regionStart.buf.subarray(0, n + 1));
      return out;
    };
    const hasCoords = complete("lat") && complete("lon");
    const ind: Individuals = {
      n,
      docIds: this.docIds,
      yPred: bytes(this.cols.y_pred),
      yTrue: complete("y_true") ? bytes(this.cols.y_true) : null,
      lat: hasCoords ? doubles(this.cols.lat) : null,
      lon: hasCoords ? doubles(this.cols.lon) : null,
      regionIds: complete("region_ids") ? { start: start(), ids: this.regionIds.joined(alloc) } : null,
      prob: complete("y_pred_prob") ? doubles(this.cols.y_pred_prob) : null,
    };
    return { ind, mapping: this.mapping, explicit: [...this.explicit], missing: { ...this.missing } };
  }
}
