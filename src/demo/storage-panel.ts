/**
 * The storage panel: what the runtime keeps in IndexedDB (responses and conversations), newest first,
 * with View (the stored JSON, as text) and Delete through OpenAI's own routes. The list itself comes
 * from `GET /v1/intab/storage`, intab's one extension route, since OpenAI has no list of responses.
 */
import { el, errorMessage } from './dom';

interface StorageListing {
  responses: { id: string; created_at: number; status: string; model: string }[];
  conversations: { id: string; created_at: number }[];
}

/**
 * @example
 * const storage = createStoragePanel();
 * aside.append(storage.root);
 * await storage.refresh();
 */
export function createStoragePanel(): { root: HTMLElement; refresh: () => Promise<void> } {
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
    status.textContent = res.ok ? 'Deleted.' : `Delete failed: ${res.status}`;
    viewer.hidden = true;
    await refresh();
  }

  function row(kind: string, id: string, detail: string): HTMLElement {
    return el('li', { attrs: { 'data-id': id } }, [
      el('span', { className: 'storage-kind', text: kind }),
      el('code', { text: id }),
      el('span', { className: 'storage-detail', text: detail }),
      el('button', { text: 'View', attrs: { type: 'button', 'data-action': 'view' } }),
      el('button', { text: 'Delete', attrs: { type: 'button', 'data-action': 'delete' } }),
    ]);
  }

  async function refresh(): Promise<void> {
    try {
      const res = await fetch('/v1/intab/storage?limit=50');
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const data = (await res.json()) as StorageListing;
      list.replaceChildren(
        ...data.responses.map((r) => row('response', r.id, `${r.status} · ${r.model}`)),
        ...data.conversations.map((c) => row('conversation', c.id, '')),
      );
      status.textContent = `${data.responses.length} responses, ${data.conversations.length} conversations stored.`;
    } catch (err) {
      status.textContent = `Could not read storage: ${errorMessage(err)}`;
    }
  }

  // One listener for every row: rows are rebuilt on each refresh.
  list.addEventListener('click', (event) => {
    const button = (event.target as HTMLElement).closest('button');
    const item = button?.closest('li');
    if (!button || !item) return;
    const id = item.getAttribute('data-id') ?? '';
    const path = id.startsWith('conv_') ? `/v1/conversations/${id}` : `/v1/responses/${id}`;
    const action = button.getAttribute('data-action');
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
