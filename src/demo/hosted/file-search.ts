/**
 * What the demo shows of a hosted `file_search` turn: the call (its queries, each result's file name
 * and the start of its text) and the files the answer cites. Everything here comes from tool output,
 * i.e. from files a visitor uploaded: it is untrusted text, so it only ever reaches the page through
 * `el`'s `textContent` and text nodes, never as HTML (issue 22, security point 1).
 */
import type { ResponseFileSearchToolCall, ResponseOutputText } from 'openai/resources/responses/responses';
import { el } from '../dom';

/** How much of each result's text the demo shows: enough to recognise the excerpt. */
const EXCERPT_CHARS = 120;

const clipped = (text: string) => (text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text);

/**
 * A muted block for one `file_search_call` item: "Searched files for: q1 · q2", then one line per
 * result (`filename: excerpt`), when the request included the results.
 *
 * @example
 * bubble.addHosted(fileSearchCallView(item));
 */
export function fileSearchCallView(item: ResponseFileSearchToolCall): HTMLElement {
  const results = item.results ?? [];
  return el('div', { className: 'msg__tool', attrs: { 'data-testid': 'file-search-call' } }, [
    el('span', { text: `Searched files for: ${item.queries.join(' · ')} (${item.status})` }),
    el(
      'ul',
      { className: 'msg__results' },
      results.map((r) => el('li', { text: `${r.filename ?? r.file_id ?? '?'}: ${clipped(r.text ?? '')}` })),
    ),
  ]);
}

/**
 * The file names an answer cites, in order, each once: `file_citation` (a vector store's file) and
 * `container_file_citation` (a file the Python code wrote).
 */
export function citedFiles(annotations: ResponseOutputText['annotations']): string[] {
  const names = annotations.flatMap((a) =>
    a.type === 'file_citation' || a.type === 'container_file_citation' ? [a.filename] : [],
  );
  return [...new Set(names)];
}
