/**
 * The downloads panel: the running GGUF download (a progress bar with bytes, speed and time left,
 * and Cancel) and the models kept in this browser (the `intab-gguf` cache and web-llm's weights),
 * each with its size and Delete, which frees that space.
 */
import { el, errorMessage } from './dom';
import {
  DownloadError,
  type DownloadProgress,
  describeProgress,
  downloadGguf,
  GGUF_CACHE,
} from './gguf-download';
import { deleteWebLlmCached, listWebLlmCached } from './webllm-cache';

/** One model kept in this browser, as the list shows it. */
interface CachedRow {
  key: string;
  name: string;
  engine: string;
  bytes: number;
  remove(): Promise<void>;
}

/** The handle catalog-panel.ts uses. */
export interface DownloadPanel {
  root: HTMLElement;
  /** Downloads `url` (or finds it cached) with the progress shown; rejects with a DownloadError. */
  download(url: string, label: string): Promise<Blob>;
  /** The URLs cached now. */
  cachedUrls(): Promise<Set<string>>;
  /** Redraws the list of cached models. */
  refresh(): Promise<void>;
}

/**
 * @example
 * const downloads = createDownloadPanel(() => catalog.refresh());
 * const blob = await downloads.download(model.url, model.id);
 */
export function createDownloadPanel(onChange: () => void, nameOf: (url: string) => string): DownloadPanel {
  const bar = el('progress', {
    attrs: {
      max: 1,
      value: 0,
      hidden: true,
      'aria-labelledby': 'download-status',
      'data-testid': 'download-progress',
    },
  }) as HTMLProgressElement;
  const status = el('p', {
    className: 'downloads__status',
    attrs: { id: 'download-status', 'aria-live': 'polite', 'data-testid': 'download-status' },
  });
  const cancel = el('button', {
    text: 'Cancel download',
    attrs: { type: 'button', hidden: true, 'data-testid': 'download-cancel' },
  }) as HTMLButtonElement;
  const list = el('ul', { className: 'downloads__list', attrs: { 'data-testid': 'cached-models' } });
  let controller: AbortController | null = null;
  cancel.addEventListener('click', () => controller?.abort());

  const show = (label: string, p: DownloadProgress): void => {
    bar.removeAttribute('value');
    if (p.total) bar.value = Math.min(1, p.loaded / p.total);
    status.textContent = `Downloading ${label}: ${describeProgress(p)}`;
  };

  const entries = async (): Promise<Array<{ url: string; bytes: number }>> => {
    const cache = await caches.open(GGUF_CACHE);
    const requests = await cache.keys();
    return Promise.all(
      requests.map(async (r) => ({ url: r.url, bytes: (await (await cache.match(r))?.blob())?.size ?? 0 })),
    );
  };

  /** Every model kept here: the GGUFs this panel downloaded and web-llm's own weights. */
  const kept = async (): Promise<CachedRow[]> => [
    ...(await entries()).map(({ url, bytes }) => ({
      key: url,
      name: nameOf(url),
      engine: 'CPU',
      bytes,
      remove: async () => void (await (await caches.open(GGUF_CACHE)).delete(url)),
    })),
    ...(await listWebLlmCached()).map(({ model, bytes }) => ({
      key: model,
      name: model,
      engine: 'WebGPU',
      bytes,
      remove: async () => void (await deleteWebLlmCached(model)),
    })),
  ];

  const refresh = async (): Promise<void> => {
    const cached = await kept();
    list.replaceChildren(
      ...cached.map(({ key, name, engine, bytes, remove: drop }) => {
        const remove = el('button', {
          text: 'Delete',
          attrs: { type: 'button', 'aria-label': `Delete ${name}`, 'data-testid': 'cached-delete' },
        });
        remove.addEventListener('click', () => {
          void (async () => {
            await drop();
            status.textContent = `Deleted ${name}: ${(bytes / 2 ** 20).toFixed(0)} MB freed.`;
            await refresh();
            onChange();
          })().catch((err: unknown) => {
            status.textContent = `Could not delete ${name}: ${errorMessage(err)}`;
          });
        });
        return el('li', { attrs: { 'data-testid': 'cached-model', 'data-key': key } }, [
          el('code', { text: name }),
          el('span', {
            className: 'downloads__size',
            text: ` ${engine} · ${(bytes / 2 ** 20).toFixed(1)} MB `,
          }),
          remove,
        ]);
      }),
    );
    if (cached.length === 0) list.append(el('li', { text: 'No model downloaded yet.' }));
  };

  const root = el('section', { className: 'downloads', attrs: { 'aria-labelledby': 'downloads-title' } }, [
    el('h3', { text: 'Downloads', attrs: { id: 'downloads-title' } }),
    bar,
    status,
    cancel,
    el('h4', { text: 'Models kept in this browser' }),
    list,
  ]);

  return {
    root,
    async download(url, label) {
      if (controller)
        throw new DownloadError('busy', 'Another download is running: wait for it or cancel it.');
      controller = new AbortController();
      bar.hidden = false;
      bar.value = 0;
      cancel.hidden = false;
      status.classList.remove('is-error');
      status.textContent = `Downloading ${label}…`;
      try {
        const blob = await downloadGguf(url, {
          signal: controller.signal,
          onProgress: (p) => show(label, p),
        });
        status.textContent = `${label}: downloaded (${(blob.size / 2 ** 20).toFixed(1)} MB), loading…`;
        return blob;
      } catch (err) {
        status.textContent = errorMessage(err);
        status.classList.toggle('is-error', !(err instanceof DownloadError && err.kind === 'cancelled'));
        throw err;
      } finally {
        controller = null;
        bar.hidden = true;
        cancel.hidden = true;
        void refresh();
      }
    },
    async cachedUrls() {
      return new Set((await entries()).map((e) => e.url));
    },
    refresh,
  };
}
