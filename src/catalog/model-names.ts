/**
 * What a web-llm model id says about the model: its family, its parameter count and its
 * quantization. web-llm's records carry none of these as fields, but every prebuilt id spells them
 * the same way (`<name>-<params>-…-<quant>-MLC[-1k]`), so one parser covers all 165.
 */

/** Families in the order a picker groups them; the first pattern that matches an id wins. */
const FAMILIES: ReadonlyArray<[family: string, pattern: RegExp]> = [
  ['Qwen3.5', /^Qwen3\.5-/],
  ['Qwen3', /^Qwen3-/],
  ['Qwen2.5', /^Qwen2\.5-/],
  ['Qwen2', /^Qwen2-/],
  ['DeepSeek-R1', /^DeepSeek-R1/],
  ['Hermes', /Hermes/],
  ['Llama 3.2', /^Llama-3\.2-/],
  ['Llama 3.1', /^Llama-3\.1-/],
  ['Llama 3', /^Llama-3-/],
  ['Llama 2', /^Llama-2-/],
  ['Phi', /^phi-|^Phi-/],
  ['Gemma', /^gemma/],
  ['SmolLM2', /^SmolLM2-/],
  ['Ministral', /^Ministral-/],
  ['Mistral', /Mistral|^WizardMath/],
  ['OLMo', /^OLMo-/],
  ['TinyLlama', /^TinyLlama-/],
  ['StableLM', /^stablelm-/],
  ['RedPajama', /^RedPajama-/],
  ['Snowflake Arctic Embed', /^snowflake-arctic-embed/],
];

/** Used for an id no pattern above matches (a self-hosted record, say). */
export const OTHER_FAMILY = 'Other';

/**
 * Parameter counts the ids do not spell, from each model's card (Phi-3/3.5/4-mini: 3.8B; phi-2:
 * 2.7B; phi-1.5: 1.3B; snowflake-arctic-embed-m: 110M, -s: 33M).
 */
const UNSPELLED_PARAMETERS: ReadonlyArray<[pattern: RegExp, count: number]> = [
  [/^Phi-(3|3\.5|4)-mini/, 3.8e9],
  [/^Phi-3\.5-vision/, 4.2e9],
  [/^phi-2-/, 2.7e9],
  [/^phi-1_5-/, 1.3e9],
  [/^snowflake-arctic-embed-m-/, 110e6],
  [/^snowflake-arctic-embed-s-/, 33e6],
];

/**
 * The model's family, for grouping.
 *
 * @example
 * familyOf('Qwen2.5-Coder-1.5B-Instruct-q4f16_1-MLC'); // 'Qwen2.5'
 * familyOf('my-own-model'); // 'Other'
 */
export function familyOf(id: string): string {
  return FAMILIES.find(([, pattern]) => pattern.test(id))?.[0] ?? OTHER_FAMILY;
}

/** Every family name {@link familyOf} can answer, in display order. */
export const FAMILY_ORDER: readonly string[] = [...FAMILIES.map(([f]) => f), OTHER_FAMILY];

/**
 * The parameter count an id spells (`1B`, `0.5B`, `360M`, `1_6b`, Gemma 4's `E2B`), or the model
 * card's where it does not (Phi-3.5-vision: 4.2B); null when neither says.
 *
 * @example
 * parameterCount('SmolLM2-360M-Instruct-q4f16_1-MLC'); // 360_000_000
 * parameterCount('stablelm-2-zephyr-1_6b-q4f16_1-MLC'); // 1_600_000_000
 */
export function parameterCount(id: string): number | null {
  const known = UNSPELLED_PARAMETERS.find(([pattern]) => pattern.test(id));
  if (known) return known[1];
  // A size is a number directly followed by B or M and then a separator (so `Phi-3-mini-4k` and
  // `q4f16_1` never read as sizes). Gemma 4's effective size is written `E2B`.
  const m = /(?:^|[-_])E?(\d+(?:[._]\d+)?)([BbMm])(?=[-_.]|$)/.exec(id);
  if (!m?.[1] || !m[2]) return null;
  const n = Number(m[1].replace('_', '.'));
  return Math.round(n * (/[Bb]/.test(m[2]) ? 1e9 : 1e6));
}

/**
 * web-llm's quantization code (`q4f16_1`, `q0f32`, `q3f16_1`), or null for an id without one.
 *
 * @example
 * mlcQuantization('gemma-2-2b-it-q4f32_1-MLC-1k'); // 'q4f32_1'
 */
export function mlcQuantization(id: string): string | null {
  return /-(q\d+f\d+(?:_\d+)?)-MLC/.exec(id)?.[1] ?? null;
}

/**
 * The model without its build: the id with the quantization and what follows it removed, so every
 * build of one model (quantizations, 1k-context and batch variants) shares one name.
 *
 * @example
 * modelName('Llama-3.2-1B-Instruct-q4f16_1-MLC'); // 'Llama-3.2-1B-Instruct'
 * modelName('gemma-2-2b-it-q4f32_1-MLC-1k'); // 'gemma-2-2b-it'
 */
export function modelName(id: string): string {
  const m = /-q\d+f\d+(?:_\d+)?-MLC/.exec(id);
  return m ? id.slice(0, m.index) : id;
}

/**
 * The build within a model: the quantization plus any variant suffix (`q4f16_1`, `q4f16_1 · 1k
 * context`, `q0f32 · batch 32`).
 *
 * @example
 * buildLabel('Phi-3.5-mini-instruct-q4f16_1-MLC-1k'); // 'q4f16_1 · 1k context'
 */
export function buildLabel(id: string): string {
  const quant = mlcQuantization(id);
  if (!quant) return id;
  const suffix = id.slice(id.indexOf(`-${quant}-MLC`) + quant.length + 5);
  if (suffix === '-1k') return `${quant} · 1k context`;
  const batch = /^-b(\d+)$/.exec(suffix);
  if (batch) return `${quant} · batch ${batch[1]}`;
  return suffix ? `${quant} ${suffix.slice(1)}` : quant;
}

/**
 * Whether a web-llm build needs the adapter's `shader-f16` feature. web-llm 0.2.86 declares it in
 * `required_features` on only 30 of its 86 f16 builds, but every `q…f16` build's WGSL kernels compute
 * in f16 (`enable f16;`), which an adapter without `shader-f16` refuses; so the quantization decides
 * too, and the declared list is honoured for any other build.
 *
 * @example
 * needsShaderF16('Llama-3.2-1B-Instruct-q4f16_1-MLC', []); // true (declared nowhere, f16 kernels)
 * needsShaderF16('Llama-3.2-1B-Instruct-q4f32_1-MLC', []); // false
 */
export function needsShaderF16(id: string, requiredFeatures: readonly string[]): boolean {
  return requiredFeatures.includes('shader-f16') || /^q\d+f16/.test(mlcQuantization(id) ?? '');
}
