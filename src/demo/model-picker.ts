/**
 * The model picker: `scripted` (always there, no GPU) plus whatever `GET /v1/models` lists, grouped
 * by engine, and any GGUF file the visitor opens. Picking a real model downloads and loads it through
 * `intab.loadModel`, which can take minutes, so the picker shows a `<progress>` bar with the engine's
 * own progress text and keeps the chat on the previous model until the load has succeeded.
 */
import type OpenAI from 'openai';
import type { IntabClient } from '../client';
import { el, errorMessage } from './dom';
import { describeProgress } from './gguf-download';
import { loadFailureMessage } from './load-failures';
import { webLlmDownloadMeter } from './webllm-progress';

/** The model that needs no download and no WebGPU. */
export const SCRIPTED_MODEL = 'scripted';

/** The handle `main.ts` uses. */
export interface ModelPicker {
  root: HTMLElement;
  /** The model the chat should use: the last one that loaded successfully. */
  readonly model: string;
  /** Replaces the list (keeps `scripted` first and the current choice selected). */
  setModels(models: ListedModel[]): void;
  /**
   * Selects and loads a model picked elsewhere (the catalog panel), adding it to the list under
   * "From the catalog" if it is not there. Resolves when the load has ended, either way.
   */
  choose(id: string, label?: string): Promise<void>;
}

/** A chat model as `/v1/models` lists it, with intab's `engine` field. */
export interface ListedModel {
  id: string;
  engine?: string;
}

/** What the picker shows for each engine's group. */
const GROUPS: Array<[engine: string, label: string]> = [
  ['wllama', 'llama.cpp (GGUF, CPU, any browser)'],
  ['auto', 'llama.cpp or WebGPU, whichever this machine runs'],
  ['web-llm', 'WebGPU (web-llm, downloads weights)'],
  ['remote', 'Remote server (runs off this device)'],
];

/**
 * Lists the ids of the models the chat can use through the SDK, as any OpenAI client would.
 * @example
 * picker.setModels(await listModelIds(client));
 */
export async function listModelIds(client: OpenAI): Promise<ListedModel[]> {
  const models: ListedModel[] = [];
  // The SDK's page object is async-iterable and follows pagination for us.
  for await (const model of client.models.list()) {
    // OpenAI's model objects do not say what a model does; web-llm's embedding models (listed for
    // /v1/embeddings) all say "embed" in their ids, and cannot chat.
    const engine = (model as { engine?: string }).engine;
    if (!/embed/i.test(model.id)) models.push({ id: model.id, ...(engine ? { engine } : {}) });
  }
  return models;
}

/**
 * Builds the picker. `intab.loadModel` is only called for non-scripted models.
 * @example
 * const picker = createModelPicker(intab);
 * toolbar.append(picker.root);
 */
export function createModelPicker(
  intab: Pick<IntabClient, 'loadModel' | 'addModel' | 'cancelLoad'>,
  opts: {
    labels?: Record<string, string>;
    refresh?: () => Promise<ListedModel[]>;
    /** A model's download size, if known beforehand: the total shown until web-llm gives its own. */
    estimatedBytes?: (id: string) => number | null;
  } = {},
): ModelPicker {
  let active = SCRIPTED_MODEL;
  let listed: ListedModel[] = [];
  // Models picked in the catalog panel, kept in the list across `setModels`.
  const chosen = new Map<string, string>();
  const select = el('select', { attrs: { id: 'model-select', 'data-testid': 'model-select' } });
  const progress = el('progress', {
    attrs: {
      max: 1,
      value: 0,
      hidden: true,
      'aria-labelledby': 'load-status',
      'data-testid': 'load-progress',
    },
  });
  // Polite live region: web-llm reports progress many times a second, an assertive one would be noise.
  const status = el('p', {
    className: 'picker__status',
    text: 'scripted: deterministic, runs without a download or WebGPU.',
    attrs: { id: 'load-status', 'aria-live': 'polite', 'data-testid': 'load-status' },
  });

  // web-llm downloads its weights itself: Cancel asks the engine worker to stop that download.
  const cancel = el('button', {
    text: 'Cancel download',
    attrs: { type: 'button', hidden: true, 'data-testid': 'load-cancel' },
  }) as HTMLButtonElement;
  let loading: string | null = null;
  cancel.addEventListener('click', () => {
    if (loading) void intab.cancelLoad(loading).catch(() => {});
  });

  const setStatus = (text: string, isError = false): void => {
    status.textContent = text;
    status.classList.toggle('is-error', isError);
  };

  const load = async (id: string): Promise<void> => {
    if (id === SCRIPTED_MODEL) {
      active = id;
      progress.hidden = true;
      setStatus('scripted: deterministic, runs without a download or WebGPU.');
      return;
    }
    // One load at a time: a second one would fight the first for GPU memory.
    select.disabled = true;
    progress.hidden = false;
    progress.value = 0;
    setStatus(`Loading ${id}…`);
    const meter = webLlmDownloadMeter({ estimatedBytes: opts.estimatedBytes?.(id) ?? null });
    loading = id;
    try {
      await intab.loadModel(id, (report) => {
        progress.value = Math.min(1, Math.max(0, report.progress));
        const download = meter(report);
        if (download) cancel.hidden = false; // until the load ends: loading onto the GPU can be stopped too
        if (download) {
          // The bytes move between web-llm's per-shard reports; its own fraction does not.
          if (download.total) progress.value = Math.min(1, download.loaded / download.total);
          const estimate = download.estimated ? ' (size estimated)' : '';
          setStatus(`Downloading ${id}: ${describeProgress(download)}${estimate}`);
        } else if (report.text) setStatus(report.text);
      });
      active = id;
      progress.value = 1;
      setStatus(`${id} is loaded.`);
    } catch (err) {
      progress.hidden = true;
      const cancelled = (err as { code?: unknown } | null)?.code === 'model_load_cancelled';
      setStatus(
        cancelled
          ? `Download of ${id} cancelled; the parts already downloaded are kept. The chat stays on ${active}.`
          : loadFailureMessage(id, err, active),
        !cancelled,
      );
      select.value = active;
    } finally {
      loading = null;
      cancel.hidden = true;
      select.disabled = false;
    }
  };
  select.addEventListener('change', () => void load(select.value));

  const setModels = (models: ListedModel[]): void => {
    listed = models;
    const others = models.filter((m) => m.id !== SCRIPTED_MODEL);
    const group = (label: string, list: ListedModel[]): HTMLOptGroupElement =>
      el(
        'optgroup',
        { attrs: { label } },
        [...list]
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((m) =>
            el('option', {
              text: opts.labels?.[m.id] ?? (m.engine === 'remote' ? `${m.id} (remote)` : m.id),
              attrs: { value: m.id },
            }),
          ),
      );
    select.replaceChildren(group('No download', [{ id: SCRIPTED_MODEL }]));
    for (const [engine, label] of GROUPS) {
      const members = others.filter((m) => (m.engine ?? 'web-llm') === engine);
      if (members.length > 0) select.append(group(label, members));
    }
    const picked = [...chosen.keys()].filter((id) => !models.some((m) => m.id === id));
    if (picked.length > 0)
      select.append(
        el(
          'optgroup',
          { attrs: { label: 'From the catalog' } },
          picked.map((id) => el('option', { text: chosen.get(id) ?? id, attrs: { value: id } })),
        ),
      );
    select.value = active;
  };
  setModels([]);

  // A GGUF from the visitor's disk, served by llama.cpp under its file name.
  const fileInput = el('input', {
    attrs: { type: 'file', accept: '.gguf', hidden: true, 'data-testid': 'gguf-input' },
  }) as HTMLInputElement;
  fileInput.addEventListener('change', () => {
    const files = [...(fileInput.files ?? [])];
    fileInput.value = '';
    const first = files[0];
    if (!first) return;
    void (async () => {
      try {
        const id = first.name.replace(/(-\d{5}-of-\d{5})?\.gguf$/i, '');
        await intab.addModel({ id, files, label: first.name });
        setModels(opts.refresh ? await opts.refresh() : [...listed, { id, engine: 'wllama' }]);
        select.value = id;
        await load(id);
      } catch (err) {
        setStatus(`Could not open ${first.name}: ${errorMessage(err)}`, true);
      }
    })();
  });
  const openFile = el('button', {
    className: 'picker__open',
    text: 'Open a GGUF file…',
    attrs: { type: 'button', 'data-testid': 'open-gguf' },
  });
  openFile.addEventListener('click', () => fileInput.click());

  const root = el('div', { className: 'picker' }, [
    el('label', { className: 'picker__label', text: 'Model', attrs: { for: 'model-select' } }),
    select,
    openFile,
    fileInput,
    progress,
    cancel,
    status,
  ]);
  return {
    root,
    get model() {
      return active;
    },
    setModels,
    async choose(id, label) {
      if (![...select.options].some((o) => o.value === id)) {
        chosen.set(id, label ?? id);
        setModels(listed);
      }
      select.value = id;
      await load(id);
    },
  };
}
