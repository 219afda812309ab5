/**
 * The storage panel: what the runtime keeps in this browser, newest first and dated: responses and
 * conversations (from `GET /v1/intab/storage`, intab's one extension route, since OpenAI has no list
 * of responses), uploaded files and vector stores (OpenAI's own lists). View shows the stored JSON
 * as text; Open puts a response's chat back in the chat panel; Delete goes through OpenAI's routes.
 */
import type OpenAI from 'openai';
import { el, errorMessage } from '../dom';
import { shortDate } from '../files/dates';

interface StorageListing {
  responses: { id: string; created_at: number; status: string; model: string }[];
  conversations: { id: string; created_at: number }[];
}

/** The newest entries of each kind the panel lists. */
const LIMIT = 50;

type Kind = 'response' | 'conversation' | 'file' | 'vector store';

const PATHS: Record<Kind, string> = {
  response: '/v1/responses/',
  conversation: '/v1/conversations/',
  file: '/v1/files/',
  'vector store': '/v1/vector_stores/',
};

/** The panel and its refresh. */
export interface StoragePanel {
  root: HTMLElement;
  refresh(): Promise<void>;
}

/**
 * @example
 * const storage = createStoragePanel(client, (id) => openChat(id));
 * aside.append(storage.root);
 * await storage.refresh();
 */
export function createStoragePanel(client: OpenAI, openResponse: (id: string) => void): StoragePanel {
  const list = el('ul', { className: 'storage-list', attrs: { 'data-testid': 'storage-list' } });
  const viewer = el('pre', {
    className: 'storage-view',
    attrs: { 'data-testid': 'storage-view', hidden: true },
  });
  const status = el('p', { className: 'status', attrs: { role: 'status' } });
  const refreshButton = el('button', {
    text: 'Refresh',
    attrs: { type: 'button', 'data-testid': 'storage-refresh' },
  });

  async function view(path: string): Promise<void> {
    const res = await fetch(path);
    // Stored output is model text: shown as text, never as HTML.
    viewer.textContent = JSON.stringify(await res.json(), null, 2);
    viewer.hidden = false;
  }

  async function remove(path: string): Promise<void> {
    const res = await fetch(path, { method: 'DELETE' });
    status.textContent = res.ok ? 'Deleted.' : `Could not delete it (HTTP ${res.status}).`;
    viewer.hidden = true;
    await refresh();
  }

  function row(kind: Kind, id: string, created: number, detail: string): HTMLElement {
    const button = (text: string, action: string) =>
      el('button', { text, attrs: { type: 'button', 'data-action': action } });
    return el('li', { attrs: { 'data-id': id, 'data-kind': kind } }, [
      el('span', { className: 'storage-kind', text: kind }),
      el('span', {
        className: 'storage-detail',
        text: `${shortDate(created)}${detail ? ` · ${detail}` : ''}`,
      }),
      el('code', { text: id, attrs: { title: id } }),
      ...(kind === 'response' ? [button('Open', 'open')] : []),
      button('View', 'view'),
      button('Delete', 'delete'),
    ]);
  }

  async function refresh(): Promise<void> {
    try {
      const res = await fetch(`/v1/intab/storage?limit=${LIMIT}`);
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const data = (await res.json()) as StorageListing;
      const [files, stores] = await Promise.all([
        client.files.list({ limit: LIMIT }),
        client.vectorStores.list({ limit: LIMIT }),
      ]);
      list.replaceChildren(
        ...data.responses.map((r) =>
          row('response', r.id, r.created_at, `${plainStatus(r.status)} · ${r.model}`),
        ),
        ...data.conversations.map((c) => row('conversation', c.id, c.created_at, '')),
        ...files.data.map((f) => row('file', f.id, f.created_at, f.filename)),
        ...stores.data.map((s) => row('vector store', s.id, s.created_at, s.name)),
      );
      status.textContent = `${data.responses.length} responses, ${data.conversations.length} conversations, ${files.data.length} files and ${stores.data.length} vector stores stored.`;
    } catch (err) {
      status.textContent = `Could not read what is stored: ${errorMessage(err)}`;
    }
  }

  // One listener for every row: rows are rebuilt on each refresh.
  list.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest('button');
    const item = button?.closest('li');
    if (!button || !item) return;
    const id = item.getAttribute('data-id') ?? '';
    const kind = (item.getAttribute('data-kind') ?? 'response') as Kind;
    const action = button.getAttribute('data-action');
    if (action === 'open') return openResponse(id);
    const path = `${PATHS[kind]}${id}`;
    void (action === 'view' ? view(path) : remove(path)).catch((err) => {
      status.textContent = errorMessage(err);
    });
  });
  refreshButton.addEventListener('click', () => void refresh());

  const root = el(
    'section',
    {
      className: 'panel storage',
      attrs: { 'aria-labelledby': 'storage-title', 'data-testid': 'storage-panel' },
    },
    [
      el('h2', { text: 'Stored in this browser', attrs: { id: 'storage-title' } }),
      refreshButton,
      status,
      list,
      viewer,
    ],
  );
  return { root, refresh };
}

/** A response's status as a visitor reads it. */
function plainStatus(status: string): string {
  const words: Record<string, string> = {
    completed: 'answered',
    incomplete: 'cut off',
    failed: 'failed',
    cancelled: 'stopped',
    in_progress: 'running',
    queued: 'waiting',
  };
  return words[status] ?? status;
}
