/**
 * A mitigation's `mitigated_preds` held as columns (the collection's document ids, the positions judged,
 * the predictions before and after), never as 200,000 line objects kept from the solver's answer to the end
 * of the response: those outlived the young generation, and the collections that moved them held the event
 * loop. The response writes the lines' JSON text as bytes straight
 * from the columns (`jsonBytes`, for routes/http/json_answer.ts), the run's chunks take them as columns
 * (`idLength`, `columns`: predictionCuts and predictionChunk in services/spatial/runs.ts), and anything else
 * makes them a slice at a time (`slice`); its JSON text (`toJSON`) is that of the whole array.
 */
import { docIdAt, docIdIn, type DocIds } from "../../core/spatial/doc_ids.ts";
import type { PredictionColumns } from "../spatial/run_chunks.ts";
import { jsonAscii, jsonStringRoom, putRaw, putString, putUint, withRoom } from "../../core/json_bytes.ts";

/** One line of `mitigated_preds`: an individual the mitigation judged, its final prediction. */
export interface FinalPrediction {
  idx: number;
  doc_id: string;
  y_pred: number;
  flipped: boolean;
}

/** A line's keys and punctuation, as bytes (jsonBytes). */
const FIRST = jsonAscii('{"idx":'), NEXT = jsonAscii(',{"idx":'), DOC_ID = jsonAscii(',"doc_id":');
const Y_PRED = jsonAscii(',"y_pred":'), FLIPPED = jsonAscii(',"flipped":true}');
const KEPT = jsonAscii(',"flipped":false}');
/** Bytes a line takes beside its id: its keys and punctuation, and two numbers of up to 10 digits. */
const LINE_ROOM = NEXT.length + DOC_ID.length + Y_PRED.length + KEPT.length + 20;

export class PredictionLines {
  /** Where an id starts and ends in its piece (idLength). */
  private readonly span = new Int32Array(2);
  /**
   * The lines of the individuals at `positions` (ascending collection positions; null: every one), each
   * with its prediction in `preds` and whether it differs from `before` (the mapped y_pred).
   */
  constructor(
    private readonly docIds: DocIds,
    private readonly positions: ArrayLike<number> | null,
    private readonly preds: Uint8Array,
    private readonly before: Uint8Array,
  ) {}

  get length(): number {
    return this.positions?.length ?? this.preds.length;
  }

  /** Lines `from` to `to` - 1 (within 0..length), as objects. */
  slice(from = 0, to = this.length): FinalPrediction[] {
    const end = Math.min(to, this.length), out: FinalPrediction[] = [];
    for (let j = Math.max(0, from); j < end; j++) {
      const i = this.positions ? this.positions[j] : j;
      out.push({
        idx: i,
        doc_id: docIdAt(this.docIds, i)!,
        y_pred: this.preds[i],
        flipped: this.preds[i] !== this.before[i],
      });
    }
    return out;
  }

  /** The JSON texts of lines `from` to `to` - 1, joined by commas, as UTF-8 (see core/json_bytes.ts). */
  jsonBytes(from = 0, to = this.length): Uint8Array {
    const start = Math.max(0, from), end = Math.min(to, this.length), span = new Int32Array(2);
    let buf = new Uint8Array(Math.max(0, end - start) * 96), at = 0;
    for (let j = start; j < end; j++) {
      const i = this.positions ? this.positions[j] : j;
      const id = docIdIn(this.docIds, i, span);
      buf = withRoom(buf, at, LINE_ROOM + jsonStringRoom(span[1] - span[0]));
      at = putUint(buf, putRaw(buf, at, j > start ? NEXT : FIRST), i);
      at = putString(buf, putRaw(buf, at, DOC_ID), id, span[0], span[1]);
      at = putUint(buf, putRaw(buf, at, Y_PRED), this.preds[i]);
      at = putRaw(buf, at, this.preds[i] !== this.before[i] ? FLIPPED : KEPT);
    }
    return buf.subarray(0, at);
  }

  /** The length of line j's doc_id, read from where the ids end (the run's cuts: predictionCuts). */
  idLength(j: number): number {
    docIdIn(this.docIds, this.positions ? this.positions[j] : j, this.span);
    return this.span[1] - this.span[0];
  }

  /** Lines `from` to `to` - 1 as a run's chunk holds them, without making the lines (predictionChunk). */
  columns(from: number, to: number): PredictionColumns {
    const ids: string[] = [], idx: number[] = [], y: number[] = [], f: boolean[] = [];
    for (let j = Math.max(0, from), end = Math.min(to, this.length); j < end; j++) {
      const i = this.positions ? this.positions[j] : j;
      ids.push(docIdAt(this.docIds, i)!);
      idx.push(i);
      y.push(this.preds[i]);
      f.push(this.preds[i] !== this.before[i]);
    }
    return { ids, idx, y, f };
  }

  /** Every line, as JSON.stringify writes the answer. */
  toJSON(): FinalPrediction[] {
    return this.slice();
  }
}
