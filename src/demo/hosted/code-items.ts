/**
 * What the demo shows of a `code_interpreter_call`: the code, its logs, and its images. Logs and
 * the code (which holds whatever file names it wrote) are untrusted text and go in through
 * `textContent`; an image becomes an `<img>` only when {@link safeImageUrl} finds a real PNG or
 * JPEG `data:` URL, otherwise its URL is shown as text (issue 26, security point 1).
 */
import type { ResponseCodeInterpreterToolCall } from 'openai/resources/responses/responses';
import { el } from '../dom';
import { safeImageUrl } from './image-url';

/** How much of the logs the demo shows; the rest is in the response. */
const LOG_CHARS = 4_000;
/** How much of a refused image URL is shown as text. */
const URL_CHARS = 120;

const clipped = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

function outputView(output: NonNullable<ResponseCodeInterpreterToolCall['outputs']>[number]): HTMLElement {
  if (output.type === 'logs') {
    return el('pre', {
      className: 'msg__code',
      text: clipped(output.logs, LOG_CHARS),
      attrs: { 'data-testid': 'ci-logs' },
    });
  }
  const url = safeImageUrl(output.url);
  if (url) {
    return el('img', {
      className: 'msg__image',
      attrs: { src: url, alt: 'An image the Python code wrote', 'data-testid': 'ci-image' },
    });
  }
  return el('span', {
    text: `Image not shown (not a PNG or JPEG data URL): ${clipped(output.url, URL_CHARS)}`,
    attrs: { 'data-testid': 'ci-image-refused' },
  });
}

/**
 * A muted block for `code_interpreter_call`: "Ran Python in <container> (status)", the code, then
 * each output in order (outputs come only with `include: ['code_interpreter_call.outputs']`).
 *
 * @example
 * bubble.addHosted(codeInterpreterCallView(item));
 */
export function codeInterpreterCallView(item: ResponseCodeInterpreterToolCall): HTMLElement {
  return el('div', { className: 'msg__tool', attrs: { 'data-testid': 'code-interpreter-call' } }, [
    el('span', { className: 'msg__tool-head', text: `Ran Python in ${item.container_id} (${item.status})` }),
    el('pre', { className: 'msg__code', text: item.code ?? '', attrs: { 'data-testid': 'ci-code' } }),
    ...(item.outputs ?? []).map(outputView),
  ]);
}
