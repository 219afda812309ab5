/**
 * "Files & vector stores" (issue 46): upload files into a vector store, list the stores and the
 * uploaded files with their dates, delete either, search a store, and pick the store a chat turn
 * searches with `file_search`. Nothing is searched until the visitor picks a store here: a store
 * that merely exists (made from the console, or by another page) is never searched on its own.
 * File names, store names and search results are untrusted text: they reach the page through
 * `el`'s textContent only.
 */
import type OpenAI from 'openai';
import { el, errorMessage } from '../dom';
import { shortDate } from './dates';

/** The newest stores and files the panel lists (one page of each). */
const LIST_LIMIT = 20;
/** How many search results the panel shows, and how much of each. */
const SEARCH_RESULTS = 5;
const EXCERPT_CHARS = 160;

/** The panel, the store the visitor picked for chat turns, and a refresh. */
export interface FilesPanel {
  root: HTMLElement;
  /** The store a chat turn searches: the one picked here, or none. */
  pickedStores(): string[];
  refresh(): Promise<void>;
}

/**
 * @example
 * const files = createFilesPanel(client, () => storage.refresh());
 * const session = new ChatSession(client, view, model, cap, async () => files.pickedStores());
 */
export function createFilesPanel(client: OpenAI, onChange: () => void = () => {}): FilesPanel {
  const status = el('p', { className: 'status', attrs: { role: 'status', 'data-testid': 'files-status' } });
  const pick = el('select', { attrs: { id: 'chat-store', 'data-testid': 'chat-store' } });
  const upload = el('input', {
    attrs: { id: 'files-upload', type: 'file', multiple: true, 'data-testid': 'files-upload' },
  });
  const stores = el('ul', { className: 'storage-list', attrs: { 'data-testid': 'store-list' } });
  const files = el('ul', { className: 'storage-list', attrs: { 'data-testid': 'file-list' } });
  const query = el('input', {
    attrs: {
      id: 'store-query',
      type: 'search',
      placeholder: 'Search the picked store',
      'data-testid': 'store-query',
    },
  });
  const searchButton = el('button', {
    text: 'Search',
    attrs: { type: 'button', 'data-testid': 'store-search' },
  });
  const results = el('ol', { className: 'msg__results', attrs: { 'data-testid': 'store-results' } });
  const refreshButton = el('button', {
    text: 'Refresh',
    attrs: { type: 'button', 'data-testid': 'files-refresh' },
  });
  refreshButton.addEventListener('click', () => void refresh());
  let picked = '';

  const say = (text: string) => {
    status.textContent = text;
  };

  async function refresh(): Promise<void> {
    try {
      const [storePage, filePage] = await Promise.all([
        client.vectorStores.list({ limit: LIST_LIMIT }),
        client.files.list({ limit: LIST_LIMIT }),
      ]);
      stores.replaceChildren(
        ...storePage.data.map((s) =>
          row(s.id, s.name || s.id, `${s.file_counts.completed} files · ${shortDate(s.created_at)}`, 'store'),
        ),
      );
      files.replaceChildren(
        ...filePage.data.map((f) =>
          row(f.id, f.filename, `${f.bytes} bytes · ${shortDate(f.created_at)}`, 'file'),
        ),
      );
      const ready = storePage.data.filter((s) => s.status === 'completed');
      if (!ready.some((s) => s.id === picked)) picked = '';
      pick.replaceChildren(
        el('option', { text: 'No file search', attrs: { value: '' } }),
        ...ready.map((s) => el('option', { text: s.name || s.id, attrs: { value: s.id } })),
      );
      pick.value = picked;
    } catch (err) {
      say(`Could not list files: ${errorMessage(err)}`);
    }
  }

  function row(id: string, name: string, detail: string, kind: 'store' | 'file'): HTMLElement {
    const remove = el('button', {
      text: 'Delete',
      attrs: { type: 'button', 'data-testid': `${kind}-delete`, 'aria-label': `Delete ${name}` },
    });
    remove.addEventListener('click', () => {
      const gone = kind === 'store' ? client.vectorStores.delete(id) : client.files.delete(id);
      void gone
        .then(() => say(`Deleted ${name}.`))
        .catch((err: unknown) => say(`Could not delete ${name}: ${errorMessage(err)}`))
        .then(refresh)
        .then(onChange);
    });
    return el('li', { attrs: { 'data-id': id } }, [
      el('span', { className: 'storage-kind', text: name }),
      el('span', { className: 'storage-detail', text: detail }),
      remove,
    ]);
  }

  upload.addEventListener('change', () => {
    const chosen = [...(upload.files ?? [])];
    if (chosen.length === 0) return;
    say(`Indexing ${chosen.length} file(s)…`);
    // Into the picked store, or a new one named after the first file.
    const target = picked
      ? Promise.resolve(picked)
      : client.vectorStores.create({ name: chosen[0]?.name ?? 'files' }).then((s) => s.id);
    void target
      .then(async (id) => {
        const batch = await client.vectorStores.fileBatches.uploadAndPoll(
          id,
          { files: chosen },
          { pollIntervalMs: 100 },
        );
        picked = id;
        say(
          `${batch.file_counts.completed} of ${chosen.length} file(s) indexed; chat turns now search this store.`,
        );
      })
      .catch((err: unknown) => say(`Upload failed: ${errorMessage(err)}`))
      .then(refresh)
      .then(onChange);
    upload.value = '';
  });

  pick.addEventListener('change', () => {
    picked = pick.value;
    say(picked ? 'Chat turns search this store (file_search).' : 'Chat turns search no store.');
  });

  searchButton.addEventListener('click', () => {
    const q = query.value.trim();
    if (!picked || !q) return say('Pick a store and type what to look for.');
    void client.vectorStores
      .search(picked, { query: q, max_num_results: SEARCH_RESULTS })
      .then((page) => {
        results.replaceChildren(
          ...page.data.map((r) => {
            const text = r.content.map((c) => c.text).join(' ');
            const excerpt = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
            return el('li', { text: `${r.filename} (${r.score.toFixed(2)}): ${excerpt}` });
          }),
        );
        say(page.data.length === 0 ? 'Nothing found.' : `${page.data.length} result(s).`);
      })
      .catch((err: unknown) => say(`Search failed: ${errorMessage(err)}`));
  });

  const root = el(
    'section',
    {
      className: 'panel files tools',
      attrs: { 'aria-labelledby': 'files-title', 'data-testid': 'files-panel' },
    },
    [
      el('h2', { text: 'Files & vector stores', attrs: { id: 'files-title' } }),
      refreshButton,
      el('label', { className: 'tools__label', text: 'Chat turns search', attrs: { for: 'chat-store' } }),
      pick,
      el('label', {
        className: 'tools__label',
        text: 'Upload into the picked store (or a new one)',
        attrs: { for: 'files-upload' },
      }),
      upload,
      status,
      el('h3', { text: 'Vector stores' }),
      stores,
      el('h3', { text: 'Files' }),
      files,
      el('label', {
        className: 'tools__label',
        text: 'Search the picked store',
        attrs: { for: 'store-query' },
      }),
      el('div', { className: 'files__search' }, [query, searchButton]),
      results,
    ],
  );
  return { root, pickedStores: () => (picked ? [picked] : []), refresh };
}
