import { pace } from '../../common/pace';
import { SCAN_SLICE } from './budgets';

/**
 * Normalised vectors as int8, for stores too big to keep as float32 in worker memory (issue 22:
 * "above 50k chunks store int8 vectors, 4× less memory"). Each row keeps its own scale (symmetric,
 * `max |x| / 127`), so a row whose weight sits in a few components loses no more than one spread
 * evenly; a row costs `dims + 4` bytes instead of `4 · dims`. The query stays float32, so a score
 * is `scale · Σ q8[i] · query[i]`, off from the float score by at most `scale / 2 · ‖query‖₁`.
 */
export interface Int8Rows {
  dimensions: number;
  /** `rows · dimensions` quantised components, row after row. */
  values: Int8Array;
  /** One scale per row: component `i` of row `r` is `values[r · dims + i] · scales[r]`. */
  scales: Float32Array;
}

/**
 * Quantises `rows` vectors of `dims` floats, pacing every {@link SCAN_SLICE} rows (a 100k × 768
 * store is 77M components: it must not hold the worker in one step).
 *
 * @example
 * const int8 = await quantizeRows(file.vectors, 384);
 */
export async function quantizeRows(vectors: Float32Array, dims: number): Promise<Int8Rows> {
  const rows = dims > 0 ? Math.floor(vectors.length / dims) : 0;
  const values = new Int8Array(rows * dims);
  const scales = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    const base = r * dims;
    let max = 0;
    for (let i = 0; i < dims; i++) {
      const a = Math.abs(vectors[base + i] as number);
      if (a > max) max = a;
    }
    const scale = max / 127;
    scales[r] = scale;
    if (scale > 0)
      for (let i = 0; i < dims; i++) values[base + i] = Math.round((vectors[base + i] as number) / scale);
    if ((r + 1) % SCAN_SLICE === 0) await pace();
  }
  return { dimensions: dims, values, scales };
}

/**
 * Row `row` of `rows` · `query` (float32 query, four lanes as the float scan does).
 *
 * @example
 * const score = dotInt8(int8, 42, queryVector);
 */
export function dotInt8(rows: Int8Rows, row: number, query: Float32Array): number {
  const n = query.length;
  const v = rows.values;
  const base = row * n;
  let a = 0;
  let b = 0;
  let c = 0;
  let d = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    a += (v[base + i] as number) * (query[i] as number);
    b += (v[base + i + 1] as number) * (query[i + 1] as number);
    c += (v[base + i + 2] as number) * (query[i + 2] as number);
    d += (v[base + i + 3] as number) * (query[i + 3] as number);
  }
  for (; i < n; i++) a += (v[base + i] as number) * (query[i] as number);
  return (a + b + c + d) * (rows.scales[row] as number);
}

/** Bytes `rows` takes in memory (its two typed arrays). */
export function int8Bytes(rows: Int8Rows): number {
  return rows.values.byteLength + rows.scales.byteLength;
}
