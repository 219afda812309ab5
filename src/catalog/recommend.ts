/**
 * The model to try first on a device: the largest general chat model that fits comfortably, on
 * WebGPU where one does, else on the CPU engine (the fallback), else null (only `scripted` then).
 */
import type { CatalogModel } from './catalog';
import { type DeviceFacts, deviceFit } from './device-fit';

/**
 * Builds a first-time visitor should not be pointed at: specialised or community fine-tunes, base
 * models, vision, short-context and batch variants.
 */
const NOT_FIRST = /Base|Math|Coder|vision|jpn|Hermes|DeepSeek|Wizard|1k context|batch/i;
/**
 * The CPU engine runs a 3.8B model at a word or two a second in wasm; a first model there should
 * answer at reading speed, so the fallback stays at or under 2B parameters.
 */
export const CPU_RECOMMEND_MAX_PARAMETERS = 2e9;

/**
 * Picks the recommended model among `models` (the catalog, or the part of it this runtime serves).
 * Among the ones that fit, web-llm wins over the CPU engine (a GPU is many times faster); then the
 * most parameters; then the smaller memory need.
 *
 * @example
 * recommendModel(MODEL_CATALOG, { webgpu: null, deviceMemoryGB: 4, storageFreeBytes: 10e9 })?.engine; // 'wllama'
 */
export function recommendModel(
  models: readonly CatalogModel[],
  facts: DeviceFacts,
  isCached: (id: string) => boolean = () => false,
): CatalogModel | null {
  const candidates = models.filter(
    (m) =>
      m.kind === 'chat' &&
      !NOT_FIRST.test(`${m.name} ${m.build}`) &&
      (m.engine === 'web-llm' || (m.parameters ?? 0) <= CPU_RECOMMEND_MAX_PARAMETERS) &&
      deviceFit(m, facts, isCached(m.id)).level === 'fits',
  );
  const score = (m: CatalogModel): [number, number, number] => [
    m.engine === 'web-llm' ? 1 : 0,
    m.parameters ?? 0,
    -(m.vramRequiredMB ?? m.downloadBytes ?? 0),
  ];
  let best: CatalogModel | null = null;
  for (const m of candidates) {
    if (!best || compare(score(m), score(best)) > 0) best = m;
  }
  return best;
}

function compare(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}
