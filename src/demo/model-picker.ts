/**
 * The model picker: `scripted` (always there, no GPU) plus whatever `GET /v1/models` lists. Picking a
 * web-llm model downloads and compiles it through `intab.loadModel`, which can take minutes, so the
 * picker shows a `<progress>` bar with web-llm's own progress text and keeps the chat on the previous
 * model until the load has succeeded.
 */
import type OpenAI from 'openai';
import type { IntabClient } from '../client';
import { el, errorMessage } from './dom';

/** The model that needs no download and no WebGPU. */
export const SCRIPTED_MODEL = 'scripted';

/** The handle `main.ts` uses. */
export interface ModelPicker {
  root: HTMLElement;
  /** The model the chat should use: the last one that loaded successfully. */
  readonly model: string;
  /** Replaces the list (keeps `scripted` first and the current choice selected). */
  setModels(ids: string[]): void;
}

/**
 * Lists the ids of the models the chat can use through the SDK, as any OpenAI client would.
 * @example
 * picker.setModels(await listModelIds(client));
 */
export async function listModelIds(client: OpenAI): Promise<string[]> {
  const ids: string[] = [];
  // The SDK's page object is async-iterable and follows pagination for us.
  for await (const model of client.models.list()) {
    // OpenAI's model objects do not say what a model does; web-llm's embedding models (listed for
    // /v1/embeddings) all say "embed" in their ids, and cannot chat.
    if (!/embed/i.test(model.id)) ids.push(model.id);
  }
  return ids;
}

/**
 * Builds the picker. `intab.loadModel` is only called for non-scripted models.
 * @example
 * const picker = createModelPicker(intab);
 * toolbar.append(picker.root);
 */
export function createModelPicker(intab: Pick<IntabClient, 'loadModel'>): ModelPicker {
  let active = SCRIPTED_MODEL;
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
    try {
      await intab.loadModel(id, ({ progress: fraction, text }) => {
        progress.value = Math.min(1, Math.max(0, fraction));
        if (text) setStatus(text);
      });
      active = id;
      progress.value = 1;
      setStatus(`${id} is loaded.`);
    } catch (err) {
      progress.hidden = true;
      setStatus(`Could not load ${id}: ${errorMessage(err)}. The chat stays on ${active}.`, true);
      select.value = active;
    } finally {
      select.disabled = false;
    }
  };
  select.addEventListener('change', () => void load(select.value));

  const setModels = (ids: string[]): void => {
    const others = [...new Set(ids)].filter((id) => id !== SCRIPTED_MODEL).sort();
    const group = (label: string, list: string[]): HTMLOptGroupElement =>
      el(
        'optgroup',
        { attrs: { label } },
        list.map((id) => el('option', { text: id, attrs: { value: id } })),
      );
    select.replaceChildren(group('No download', [SCRIPTED_MODEL]));
    if (others.length > 0) select.append(group('WebGPU (web-llm, downloads weights)', others));
    select.value = active;
  };
  setModels([]);

  const root = el('div', { className: 'picker' }, [
    el('label', { className: 'picker__label', text: 'Model', attrs: { for: 'model-select' } }),
    select,
    progress,
    status,
  ]);
  return {
    root,
    get model() {
      return active;
    },
    setModels,
  };
}
