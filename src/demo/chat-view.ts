/**
 * The chat's DOM: a message log, an optional instructions box and a composer with Send, Stop and
 * New chat. It knows nothing about OpenAI; `chat-session.ts` drives it. Every piece of model output
 * enters through text nodes, so a reply containing `<img onerror=...>` shows up as those characters.
 */
import { el } from './dom';
import { createReplyBubble, type ReplyBubble } from './reply-bubble';

export type { ReplyBubble } from './reply-bubble';

/** What the composer asks the session to do. */
export interface ChatHandlers {
  send(text: string, instructions: string): void;
  stop(): void;
  newChat(): void;
}

/** The handle `chat-session.ts` and `main.ts` use. */
export interface ChatView {
  root: HTMLElement;
  addUser(text: string): void;
  startReply(model: string): ReplyBubble;
  /** An error line in the log; `role="alert"` so screen readers announce it. */
  addError(text: string): void;
  /** A centred, muted line, e.g. "New chat". */
  addNotice(text: string): void;
  clear(): void;
  /** While busy, Send is off and Stop is on. */
  setBusy(busy: boolean): void;
  /** Send stays off until the service worker answers, otherwise the request would hit the network. */
  setReady(ready: boolean): void;
  /** Puts text in the composer (used by the directive hints). */
  setDraft(text: string): void;
}

/**
 * Builds the chat panel and wires its controls to `handlers`.
 * @example
 * const view = createChatView({ send: (t, i) => session.send(t, i), stop: () => session.stop(), newChat: () => session.reset() });
 * document.body.append(view.root);
 */
export function createChatView(handlers: ChatHandlers): ChatView {
  // role="log" is an implicit polite live region: new messages are announced without stealing focus.
  const messages = el('ol', {
    className: 'messages',
    attrs: { role: 'log', 'aria-label': 'Conversation', 'data-testid': 'messages' },
  });
  const input = el('textarea', {
    className: 'composer__input',
    attrs: {
      id: 'chat-input',
      rows: 3,
      placeholder: 'Say something, or try !words 40',
      'data-testid': 'chat-input',
    },
  });
  const instructions = el('textarea', {
    className: 'instructions__input',
    attrs: {
      id: 'chat-instructions',
      'aria-label': 'Instructions',
      rows: 2,
      placeholder: 'e.g. Answer in one sentence.',
    },
  });
  const button = (text: string, kind: string, testId: string, type = 'button'): HTMLButtonElement =>
    el('button', { className: `button ${kind}`, text, attrs: { type, 'data-testid': testId } });
  const send = button('Send', 'button--primary', 'send', 'submit');
  const stop = button('Stop', '', 'stop');
  const newChat = button('New chat', 'button--quiet', 'new-chat');

  let ready = false;
  let busy = false;
  const syncButtons = (): void => {
    send.disabled = !ready || busy;
    stop.disabled = !busy;
  };
  syncButtons();

  const form = el('form', { className: 'composer', attrs: { 'aria-label': 'Send a message' } }, [
    el('label', { className: 'visually-hidden', text: 'Message', attrs: { for: 'chat-input' } }),
    input,
    el('div', { className: 'composer__actions' }, [newChat, stop, send]),
  ]);
  const submit = (): void => {
    const text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = '';
    handlers.send(text, instructions.value.trim());
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit();
  });
  // Enter sends and Shift+Enter breaks the line, as in most chat apps; IME composition must not send.
  input.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      submit();
    }
  });
  stop.addEventListener('click', () => handlers.stop());
  newChat.addEventListener('click', () => handlers.newChat());

  const root = el('section', { className: 'panel chat', attrs: { 'aria-label': 'Chat' } }, [
    messages,
    el('details', { className: 'instructions' }, [
      el('summary', { text: 'Instructions (optional)' }),
      instructions,
    ]),
    form,
  ]);

  /**
   * Runs a change to the log and keeps the newest text in view, but only if the reader was already at
   * the bottom: scrolling back to read must not be undone by every streamed token. Scrolling the log
   * itself (not `scrollIntoView`) keeps the page from jumping on mobile.
   */
  const follow = <T>(change: () => T): T => {
    const atBottom = messages.scrollHeight - messages.scrollTop - messages.clientHeight < 48;
    const result = change();
    if (atBottom) messages.scrollTop = messages.scrollHeight;
    return result;
  };
  const push = (item: HTMLElement): HTMLElement => follow(() => messages.appendChild(item));

  return {
    root,
    addUser(text) {
      messages.append(
        el('li', { className: 'msg msg--user' }, [el('span', { className: 'msg__who', text: 'You' }), text]),
      );
      // Sending is a request to see the answer: jump to the bottom even if the reader had scrolled up.
      messages.scrollTop = messages.scrollHeight;
    },
    startReply(model) {
      return createReplyBubble(model, push, follow);
    },
    addError(text) {
      push(
        el('li', {
          className: 'msg msg--error',
          text,
          attrs: { role: 'alert', 'data-testid': 'chat-error' },
        }),
      );
    },
    addNotice(text) {
      push(el('li', { className: 'msg msg--notice', text }));
    },
    clear() {
      messages.replaceChildren();
    },
    setBusy(value) {
      busy = value;
      syncButtons();
    },
    setReady(value) {
      ready = value;
      syncButtons();
    },
    setDraft(text) {
      input.value = text;
      input.focus();
    },
  };
}
