/**
 * The import benchmarks' data: N rows of (lat, lon, y_true, y_pred, region_ids), region_ids a sorted list
 * of 1 to 213 region numbers below 5,000 (107 on average), as the spatial audit's individuals look when
 * every row carries the regions it falls in. Deterministic (a fixed xorshift seed), written as NDJSON, a
 * JSON array or CSV (region_ids then a quoted cell of JSON text), in pieces of `ROWS_PER_PIECE` rows.
 */

export type BenchFormat = "ndjson" | "json" | "csv";

const ROWS_PER_PIECE = 2_000;

/** xorshift32 in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** One row's fields as JSON text pieces (lat, lon, y_true, y_pred, region_ids). */
function rowOf(rand: () => number): [string, string, string, string, string] {
  const lat = (35 + rand() * 12).toFixed(6);
  const lon = (-10 + rand() * 30).toFixed(6);
  const yTrue = rand() < 0.4 ? "1" : "0";
  const yPred = rand() < 0.45 ? "1" : "0";
  const n = 1 + Math.floor(rand() * 213);
  const ids: number[] = new Array(n);
  let id = Math.floor(rand() * 40);
  for (let i = 0; i < n; i++) {
    ids[i] = id;
    id += 1 + Math.floor(rand() * 44); // 107 ids spread over ~2,400 numbers, 213 over ~4,800
  }
  return [lat, lon, yTrue, yPred, `[${ids.join(",")}]`];
}

/** The upload's text, piece by piece (a few hundred KB each). */
export function* benchPieces(rows: number, format: BenchFormat, seed = 42): Generator<string> {
  const rand = random(seed);
  if (format === "csv") yield "lat,lon,y_true,y_pred,region_ids\n";
  if (format === "json") yield "[\n";
  for (let start = 0; start < rows; start += ROWS_PER_PIECE) {
    const end = Math.min(rows, start + ROWS_PER_PIECE);
    const out: string[] = [];
    for (let r = start; r < end; r++) {
      const [lat, lon, yTrue, yPred, regions] = rowOf(rand);
      if (format === "csv") out.push(`${lat},${lon},${yTrue},${yPred},"${regions}"\n`);
      else {
        const obj = `{"lat":${lat},"lon":${lon},"y_true":${yTrue},"y_pred":${yPred},"region_ids":${regions}}`;
        out.push(format === "json" ? (r + 1 < rows ? `${obj},\n` : `${obj}\n`) : `${obj}\n`);
      }
    }
    yield out.join("");
  }
  if (format === "json") yield "]\n";
}

/** Writes the upload to `path`; its size in bytes. */
export async function writeBenchFile(path: string, rows: number, format: BenchFormat): Promise<number> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  const enc = new TextEncoder();
  let bytes = 0;
  try {
    for (const piece of benchPieces(rows, format)) {
      const data = enc.encode(piece);
      bytes += data.byteLength;
      for (let off = 0; off < data.byteLength;) off += await file.write(data.subarray(off));
    }
  } finally {
    file.close();
  }
  return bytes;
}
