/**
 * Tiny DOM helpers for the demo page. Text always goes in through `textContent` or text nodes:
 * model output is untrusted, so nothing here ever assigns `innerHTML`.
 */

/** Attributes and properties `el` knows how to set. */
export interface ElProps {
  /** Space-separated class names. */
  className?: string;
  /** Plain text content, set through `textContent` (never parsed as HTML). */
  text?: string;
  /** Plain attributes (`data-testid`, `aria-*`, `type`, `for`, ...). `false`/`null` leave them out. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
}

/**
 * Creates an element with safe text, attributes and children.
 * @example
 * const button = el('button', { text: 'Send', attrs: { type: 'submit', 'data-testid': 'send' } });
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElProps = {},
  children: Array<Node | string> = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  // Strings become text nodes, so a child can never smuggle markup in.
  node.append(...children);
  return node;
}

/**
 * Looks up an element by id and fails loudly: a missing mount point is a build mistake, not a state to
 * limp along in.
 * @example
 * const app = byId('app');
 */
export function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing from index.html`);
  return node;
}

/**
 * Turns anything thrown into a message fit for the page.
 * @example
 * status.textContent = errorMessage(err);
 */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
