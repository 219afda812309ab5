/**
 * The picker's shape, as plain data: the catalog's chat models grouped by family, one entry per
 * model with its builds (quantizations, engines) inside, each build judged against this device,
 * the recommended model first, and a search that filters by name, family or quantization. Pure, so
 * the grouping and ordering are tested in Node; catalog-browser.ts draws it.
 */
import {
  type CatalogModel,
  type DeviceFacts,
  deviceFit,
  FAMILY_ORDER,
  type Fit,
  formatBytes,
  recommendationReason,
  recommendModel,
} from '../catalog';

/** One build of a model, with its verdict here. */
export interface BuildChoice {
  model: CatalogModel;
  fit: Fit;
  cached: boolean;
  /** The option's text: build, engine, size, verdict. */
  label: string;
}

/** One model: its builds, and the one selected at first. */
export interface ModelEntry {
  name: string;
  family: string;
  parameters: number | null;
  builds: BuildChoice[];
  /** Index into `builds` of the build shown first: the recommended one, else the best fitting. */
  initial: number;
  recommended: boolean;
  /** Why the recommended model is the one for this device (its engine, its download); null on the others. */
  why: string | null;
  cached: boolean;
}

/** One family's models, in the order shown. */
export interface FamilyGroup {
  family: string;
  models: ModelEntry[];
}

const LEVEL_TEXT: Record<Fit['level'], string> = {
  fits: 'fits',
  'may-not-fit': 'may not fit',
  'cannot-run': 'cannot run here',
};
const RANK: Record<Fit['level'], number> = { fits: 2, 'may-not-fit': 1, 'cannot-run': 0 };

/**
 * What a build costs, in words: GPU memory for web-llm, the download for a GGUF.
 *
 * @example
 * sizeText(catalogEntry('Llama-3.2-1B-Instruct-Q4_K_M')!); // '770 MB download'
 */
export function sizeText(m: CatalogModel): string {
  if (m.vramRequiredMB !== null) return `${formatBytes(m.vramRequiredMB * 2 ** 20)} GPU memory`;
  return m.downloadBytes !== null ? `${formatBytes(m.downloadBytes)} download` : 'size unknown';
}

/**
 * The verdict's short form for a badge.
 * @example
 * levelText('may-not-fit'); // 'may not fit'
 */
export function levelText(level: Fit['level']): string {
  return LEVEL_TEXT[level];
}

/**
 * Groups `models` (the catalog's chat models this runtime serves) for the picker.
 *
 * @example
 * groupCatalog(models, facts, new Set(['Qwen3-0.6B-q4f16_1-MLC']), 'qwen');
 */
export function groupCatalog(
  models: readonly CatalogModel[],
  facts: DeviceFacts,
  cached: ReadonlySet<string>,
  query = '',
): FamilyGroup[] {
  const chat = models.filter((m) => m.kind !== 'embedding');
  const recommended = recommendModel(chat, facts, (id) => cached.has(id));
  const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  const byName = new Map<string, CatalogModel[]>();
  for (const m of chat) {
    const key = m.name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), m]);
  }
  const entries: ModelEntry[] = [];
  for (const builds of byName.values()) {
    const first = builds[0];
    if (!first) continue;
    const haystack = [first.name, first.family, ...builds.map((b) => `${b.quantization} ${b.engine}`)]
      .join(' ')
      .toLowerCase();
    if (!terms.every((t) => haystack.includes(t))) continue;
    const choices = builds.map((model) => choice(model, facts, cached.has(model.id)));
    const rec = builds.findIndex((b) => b.id === recommended?.id);
    entries.push({
      name: first.name,
      family: first.family,
      parameters: first.parameters,
      builds: choices,
      initial: rec >= 0 ? rec : bestIndex(choices),
      recommended: rec >= 0,
      why:
        rec >= 0 && recommended ? recommendationReason(recommended, facts, cached.has(recommended.id)) : null,
      cached: choices.some((c) => c.cached),
    });
  }
  const families = new Map<string, ModelEntry[]>();
  for (const e of entries) families.set(e.family, [...(families.get(e.family) ?? []), e]);
  const order = (f: string): number => {
    const i = FAMILY_ORDER.indexOf(f);
    return i >= 0 ? i : FAMILY_ORDER.length;
  };
  return [...families]
    .map(([family, list]) => ({
      family,
      // The recommended model first, then cached ones, then smallest first.
      models: list.sort(
        (a, b) =>
          Number(b.recommended) - Number(a.recommended) ||
          Number(b.cached) - Number(a.cached) ||
          (a.parameters ?? 0) - (b.parameters ?? 0),
      ),
    }))
    .sort(
      (a, b) =>
        Number(b.models.some((m) => m.recommended)) - Number(a.models.some((m) => m.recommended)) ||
        order(a.family) - order(b.family),
    );
}

function choice(model: CatalogModel, facts: DeviceFacts, cached: boolean): BuildChoice {
  const fit = deviceFit(model, facts, cached);
  const engine = model.engine === 'web-llm' ? 'WebGPU' : 'CPU';
  const label = `${model.build} · ${engine} · ${sizeText(model)}${cached ? ' · cached' : ''} — ${LEVEL_TEXT[fit.level]}`;
  return { model, fit, cached, label };
}

/** The build to show first: cached before not, then the best verdict, then the first listed. */
function bestIndex(choices: readonly BuildChoice[]): number {
  let best = 0;
  choices.forEach((c, i) => {
    const b = choices[best];
    if (!b) return;
    const score = (x: BuildChoice) =>
      RANK[x.fit.level] * 2 + Number(x.cached && x.fit.level !== 'cannot-run');
    if (score(c) > score(b)) best = i;
  });
  return best;
}
