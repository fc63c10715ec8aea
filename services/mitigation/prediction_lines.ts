/**
 * A mitigation's `mitigated_preds` held as columns (the collection's document ids, the positions judged,
 * the predictions before and after) and made into line objects a slice at a time, for the response
 * (routes/http/json_answer.ts) and for the run's chunks (predictionChunk in services/spatial/runs.ts).
 * 200,000 line objects kept from the solver's answer to the end of the response outlive the young
 * generation, and the collections that moved them held the event loop for 40 ms and more at 206k
 * individuals; lines made a slice at a time die young. Its JSON text (`toJSON`) is that of the whole array.
 */
import { docIdAt, type DocIds } from "../../core/spatial/doc_ids.ts";

/** One line of `mitigated_preds`: an individual the mitigation judged, its final prediction. */
export interface FinalPrediction {
  idx: number;
  doc_id: string;
  y_pred: number;
  flipped: boolean;
}

export class PredictionLines {
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

  /** Every line, as JSON.stringify writes the answer. */
  toJSON(): FinalPrediction[] {
    return this.slice();
  }
}
