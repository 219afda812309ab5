/**
 * The test models themselves: the variants, Meta's Llama 3 vocabulary and chat template, the llama
 * tensors and metadata, and the GGUF file written from them (see scripts/build-test-gguf.mjs).
 *
 * @example
 * const { sha256, params } = writeGguf(path, VARIANTS.tiny, await llama3Vocabulary());
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ALIGNMENT, ByteWriter, FILE_TYPE, GGML, T, tensorBytes, writeKv } from './gguf-writer.mjs';
import { encode, randomValues, tensorSeed } from './weights.mjs';

/** Meta's chat template for Llama 3 Instruct (tokenizer_config.json of Meta-Llama-3-8B-Instruct). */
export const LLAMA3_CHAT_TEMPLATE =
  "{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}";

/**
 * The tiny model's shape and seed (the same weights in every variant built on it). Spread right
 * after `file` and `name`, so each variant's JSON, which keys the build cache, keeps its key order.
 */
const TINY_SHAPE = {
  embd: 64,
  layers: 2,
  heads: 2,
  headsKv: 2,
  ff: 256,
  ctx: 8192,
  type: 'f16',
  seed: 0x1f2e3d4c,
};

/**
 * The variants. `file` is the name under {@link MODELS_DIR}; `type` the weight type of the matrices
 * (norms are always f32). Output and input embeddings are tied (no `output.weight`), as in
 * Llama 3.2 1B: the 128k-row embedding is most of the parameters either way.
 */
/**
 * The bench model's shape (~93M parameters), shared by its Q8_0 and F16 variants. Spread right after
 * `file` and `name`, as {@link TINY_SHAPE} is, so the variant's JSON (its build cache key) is unchanged.
 */
const BENCH_SHAPE = { embd: 512, layers: 8, heads: 8, headsKv: 8, ff: 1536, ctx: 8192 };

export const VARIANTS = {
  tiny: {
    file: 'intab-tiny-random.gguf',
    name: 'intab tiny random (Llama 3 vocabulary)',
    ...TINY_SHAPE,
  },
  // The tiny model laid out as llama.cpp's converter writes a NousResearch Hermes GGUF: the repo's
  // `default` template (plain ChatML) as `tokenizer.chat_template`, its `tool_use` one (a file of
  // tests/fixtures/templates) as `tokenizer.chat_template.tool_use` (issue 33).
  'tiny-hermes-converted': {
    file: 'intab-tiny-hermes-converted.gguf',
    name: 'intab tiny random (Hermes templates as converted)',
    ...TINY_SHAPE,
    chatTemplate:
      "{{bos_token}}{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
    toolUseTemplateFile: 'tests/fixtures/templates/NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja',
  },
  bench: {
    file: 'intab-bench-q8_0.gguf',
    name: 'intab bench random 93M Q8_0 (Llama 3 vocabulary)',
    ...BENCH_SHAPE,
    type: 'q8_0',
    seed: 0x5eed0093,
  },
  // The bench model's shape and seed in F16 (issue 47): the source llama.cpp's own llama-quantize
  // makes the quantizations people download from (bench/wllama-quants.mjs), so none is requantized
  // from Q8_0. Every dimension is a multiple of 256, so no K-quant falls back to another type.
  'bench-f16': {
    file: 'intab-bench-f16.gguf',
    name: 'intab bench random 93M F16 (Llama 3 vocabulary)',
    ...BENCH_SHAPE,
    type: 'f16',
    seed: 0x5eed0093,
  },
};

const LLAMA3_BOS = 128000;
const LLAMA3_EOT = 128009;
const FIRST_SPECIAL = 128000;

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

/** The Llama 3 vocabulary and merges, in GGUF's order (merges by priority). */
export async function llama3Vocabulary() {
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
    ['tokenizer.chat_template', T.STRING, v.chatTemplate ?? LLAMA3_CHAT_TEMPLATE],
    ...(v.toolUseTemplateFile
      ? [
          [
            'tokenizer.chat_template.tool_use',
            T.STRING,
            readFileSync(repoFile(v.toolUseTemplateFile), 'utf8'),
          ],
        ]
      : []),
  ];
}

/** A file of the repository by its path from the root. */
export function repoFile(path) {
  return new URL(`../../${path}`, import.meta.url);
}

/**
 * Writes the variant's GGUF to `path`: header, metadata, tensor infos, then each tensor's data at
 * its aligned offset. Weights are generated one tensor at a time, so memory stays near the size of
 * the largest tensor.
 */
export function writeGguf(path, v, vocab) {
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
