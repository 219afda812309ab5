/**
 * A short panel of the scripted model's directives. Each example is a button that puts it in the
 * composer, so a visitor can see streaming, stopping and errors without typing the syntax.
 */
import { el } from './dom';

interface Directive {
  example: string;
  what: string;
}

/** Mirrors "The scripted model" in DESIGN.md; keep the two in step. */
const DIRECTIVES: Directive[] = [
  { example: '!words 40', what: 'replies with exactly N tokens w1 … wN' },
  { example: '!delay 300 take your time', what: 'waits MS ms before each token (try Stop)' },
  { example: '!transcript', what: 'replies with the messages it received, as JSON' },
  { example: '!fail', what: 'the engine throws after its first token' },
  { example: '!refuse', what: 'answers with a refusal' },
];

/**
 * Builds the hint panel; `onPick` receives the example text.
 * @example
 * aside.append(createHints((text) => chat.setDraft(text)));
 */
export function createHints(onPick: (text: string) => void): HTMLElement {
  const items = DIRECTIVES.map(({ example, what }) => {
    const button = el(
      'button',
      {
        className: 'hint__try',
        attrs: { type: 'button', 'aria-label': `Put ${example} in the message box` },
      },
      [el('code', { text: example })],
    );
    button.addEventListener('click', () => onPick(example));
    return el('li', { className: 'hint' }, [button, el('span', { text: what })]);
  });
  return el('section', { className: 'panel hints', attrs: { 'aria-labelledby': 'hints-title' } }, [
    el('h2', { text: 'Try the scripted model', attrs: { id: 'hints-title' } }),
    el('p', {
      text: 'Anything else gets "You said: <your text>". Start a message with a directive:',
    }),
    el('ul', { className: 'hints__list' }, items),
  ]);
}
