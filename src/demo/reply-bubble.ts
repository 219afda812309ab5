/**
 * One assistant reply in the chat log, filled while it streams. Deltas are appended as separate text
 * nodes rather than by rebuilding a string: cheap for long replies, and model output can never be
 * parsed as HTML.
 */
import { el } from './dom';

/** One assistant reply being streamed into the log. */
export interface ReplyBubble {
  appendText(delta: string): void;
  appendRefusal(delta: string): void;
  /** Shows a hosted tool's item (built from untrusted text with `el`) above the reply's text. */
  addHosted(view: HTMLElement): void;
  /** Lists the files the reply cites, as a muted line under it. */
  setSources(filenames: string[]): void;
  /**
   * Ends the streaming look; `note` is a small muted line such as "12 tokens" or "stopped". A failed
   * reply with no text is removed, so the error line that follows is not preceded by an empty bubble.
   */
  finish(note?: string, failed?: boolean): void;
}

/**
 * Creates the bubble through the log's own `push` (append) and `follow` (keep the bottom in view).
 * @example
 * const reply = createReplyBubble('scripted', push, follow);
 * reply.appendText('Hello');
 * reply.finish('1 token');
 */
export function createReplyBubble(
  model: string,
  push: (item: HTMLElement) => HTMLElement,
  follow: (change: () => void) => void,
): ReplyBubble {
  const body = el('div', { className: 'msg__text' });
  const item = push(
    el('li', { className: 'msg msg--assistant msg--streaming', attrs: { 'aria-busy': 'true' } }, [
      el('span', { className: 'msg__who', text: model }),
      body,
    ]),
  );
  return {
    appendText(delta) {
      follow(() => body.append(delta));
    },
    appendRefusal(delta) {
      follow(() => body.append(el('span', { className: 'msg__refusal', text: delta })));
    },
    addHosted(view) {
      follow(() => item.insertBefore(view, body));
    },
    setSources(filenames) {
      if (filenames.length === 0) return;
      const line = el('span', { className: 'msg__meta', text: `Sources: ${filenames.join(', ')}` });
      follow(() => item.append(line));
    },
    finish(note, failed = false) {
      item.classList.remove('msg--streaming');
      item.removeAttribute('aria-busy');
      if (!body.textContent && failed) {
        item.remove();
        return;
      }
      if (!body.textContent)
        body.append(el('span', { className: 'msg__empty', text: 'The model sent no text.' }));
      if (note) follow(() => item.append(el('span', { className: 'msg__meta', text: note })));
    },
  };
}
