/**
 * The glue between the catalog panel and the runtime: which catalog models this runtime serves
 * (every web-llm build `/v1/models` lists, and the curated GGUFs, downloaded into the page's cache
 * with progress and handed to the CPU engine on first use), which are cached (`/v1/models`'
 * `cached`, and the page's GGUF cache), the device's facts, and loading a choice through the model
 * picker, which keeps the chat on the previous model until the load succeeds.
 */
import type OpenAI from 'openai';
import { type CatalogModel, catalogEntry, MODEL_CATALOG } from '../catalog';
import type { IntabClient } from '../client';
import { createCatalogBrowser } from './catalog-browser';
import { asEngineSees, readDeviceFacts } from './device-facts';
import { el } from './dom';
import { createDownloadPanel } from './download-panel';
import type { ListedModel, ModelPicker } from './model-picker';

/** The handle `main.ts` uses. */
export interface CatalogPanel {
  root: HTMLElement;
  /** Re-reads the runtime's models, the cache and the device, and redraws. */
  refresh(): Promise<void>;
}

/**
 * The models the plain select should list: those the catalog panel does not already show
 * (scripted, the test model, opened files, other engines' models).
 *
 * @example
 * picker.setModels(outsideCatalog(await listModelIds(client)));
 */
export function outsideCatalog(models: ListedModel[]): ListedModel[] {
  return models.filter((m) => !catalogEntry(m.id));
}

/**
 * @example
 * const catalog = createCatalogPanel(intab, client, picker);
 * aside.append(catalog.root);
 * await catalog.refresh();
 */
export function createCatalogPanel(
  intab: Pick<IntabClient, 'addModel' | 'gpuStatus'>,
  client: OpenAI,
  picker: Pick<ModelPicker, 'choose'>,
): CatalogPanel {
  const registered = new Set<string>();
  let refresh: () => Promise<void> = async () => {};
  const downloads = createDownloadPanel(
    () => void refresh(),
    (url) => MODEL_CATALOG.find((m) => m.url === url)?.id ?? url.slice(url.lastIndexOf('/') + 1),
  );

  const choose = async (model: CatalogModel): Promise<void> => {
    // A curated GGUF is served once it is in the page's cache and the CPU engine has the file;
    // web-llm downloads its own builds. A download that stops throws here: the chat stays put.
    if (model.engine === 'wllama' && model.url && !registered.has(model.id)) {
      const file = await downloads.download(model.url, model.id);
      await intab.addModel({ id: model.id, files: [file], label: model.id, device: 'cpu' });
      registered.add(model.id);
    }
    await picker.choose(model.id, `${model.name} (${model.build})`);
    await refresh();
  };
  const browser = createCatalogBrowser(choose);

  refresh = async () => {
    const [listed, facts, workerGpu, urls] = await Promise.all([
      listWithCache(client),
      readDeviceFacts(),
      // web-llm runs in the engine worker: its WebGPU, not the page's, decides what fits.
      intab.gpuStatus().catch(() => null),
      downloads.cachedUrls(),
      downloads.refresh(),
    ]);
    for (const m of listed) if (m.engine === 'wllama') registered.add(m.id);
    const served = MODEL_CATALOG.filter((m) => m.engine === 'wllama' || listed.some((l) => l.id === m.id));
    const cached = new Set([
      ...listed.filter((m) => m.cached).map((m) => m.id),
      ...served.filter((m) => m.url && urls.has(m.url)).map((m) => m.id),
    ]);
    browser.update(served, asEngineSees(facts, workerGpu), cached);
  };
  return {
    root: el('div', { className: 'catalog-panel' }, [browser.root, downloads.root]),
    refresh: () => refresh(),
  };
}

async function listWithCache(
  client: OpenAI,
): Promise<Array<{ id: string; engine?: string; cached?: boolean }>> {
  const out: Array<{ id: string; engine?: string; cached?: boolean }> = [];
  for await (const m of client.models.list())
    out.push(m as { id: string; engine?: string; cached?: boolean });
  return out;
}
