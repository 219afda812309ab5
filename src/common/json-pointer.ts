/**
 * JSON Pointer (RFC 6901), the one resolver behind every local `$ref` (the strict-output check, the
 * request-schema graph, the scripted model's instances). A pointer is `""` (the whole document) or
 * `/`-prefixed reference tokens; in a token `~1` stands for `/` and `~0` for `~` (any other `~` makes
 * it no pointer); an empty token is the key `""`. A `$ref` holds it as a URI fragment, `#/...`, whose
 * tokens are also %-decoded (`#/$defs/a%20b` names `a b`). Each token is split off before it is
 * decoded, as validators such as ajv do, so `%2F` is a `/` inside a key, never a separator.
 *
 * Arrays take the tokens RFC 6901 gives them: `0` or a number without leading zeros (`01` and `-`
 * name nothing). Objects answer only their own keys (`#/toString` names nothing).
 *
 * Bounded: parsing is one pass over the pointer (each character read once, each token decoded once),
 * and resolving is one step per token, so the work is linear in the pointer's length.
 */

/**
 * The reference tokens of a JSON pointer (`/a/b~1c` → `['a', 'b/c']`), or null when `pointer` is
 * not one (it has no leading `/`, or a `~` not followed by `0` or `1`).
 *
 * @example
 * pointerTokens('/$defs/a~1b'); // → ['$defs', 'a/b']
 * pointerTokens('');            // → []
 */
export function pointerTokens(pointer: string): string[] | null {
  return tokens(pointer, false);
}

/**
 * The reference tokens of a URI fragment that holds a JSON pointer (`#/$defs/a%20b` →
 * `['$defs', 'a b']`), or null when `ref` is not one: no leading `#`, a plain-name fragment (`#foo`,
 * an anchor, not a pointer), bad %-encoding or a bad `~` escape.
 *
 * @example
 * fragmentTokens('#/$defs/A'); // → ['$defs', 'A']
 * fragmentTokens('#');         // → []
 */
export function fragmentTokens(ref: string): string[] | null {
  return ref.startsWith('#') ? tokens(ref.slice(1), true) : null;
}

/**
 * What `tokens` lead to from `root`, or undefined when one of them names nothing (a missing own key,
 * an index out of range or not in RFC 6901's form, a step into a string or number).
 *
 * @example
 * resolveTokens({ a: [{ b: 1 }] }, ['a', '0', 'b']); // → 1
 */
export function resolveTokens(root: unknown, tokens: readonly string[]): unknown {
  let node: unknown = root;
  for (const token of tokens) {
    if (Array.isArray(node)) node = INDEX.test(token) ? node[Number(token)] : undefined;
    else if (typeof node === 'object' && node !== null && Object.hasOwn(node, token))
      node = (node as Record<string, unknown>)[token];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/**
 * What a local `$ref` (`#/$defs/A`) names in `root`, or undefined when it names nothing or is no
 * local JSON pointer (a remote ref, an anchor).
 *
 * @example
 * resolveFragment({ $defs: { 'a b': { type: 'string' } } }, '#/$defs/a%20b'); // → { type: 'string' }
 */
export function resolveFragment(root: unknown, ref: string): unknown {
  const keys = fragmentTokens(ref);
  return keys ? resolveTokens(root, keys) : undefined;
}

/**
 * A path of keys and indexes as a JSON pointer (`['a/b', 0]` → `/a~1b/0`); with `fragment`, as the
 * URI fragment a `$ref` holds (`#/a~1b/0`, each token %-encoded).
 *
 * @example
 * encodePointer(['$defs', 'a b'], true); // → '#/$defs/a%20b'
 */
export function encodePointer(path: readonly (string | number)[], fragment = false): string {
  let out = fragment ? '#' : '';
  for (const key of path) {
    const token = String(key).replace(/~/g, '~0').replace(/\//g, '~1');
    out += `/${fragment ? encodeURIComponent(token) : token}`;
  }
  return out;
}

/** An array index as RFC 6901 writes it: `0`, or digits without a leading zero. */
const INDEX = /^(?:0|[1-9][0-9]*)$/;

/** Splits `text` on `/` in one pass, unescaping (and with `percent`, %-decoding) each token once. */
function tokens(text: string, percent: boolean): string[] | null {
  if (text === '') return [];
  if (text.charCodeAt(0) !== 47 /* / */) return null;
  const out: string[] = [];
  let start = 1;
  for (let i = 1; i <= text.length; i++) {
    if (i < text.length && text.charCodeAt(i) !== 47) continue;
    const token = decodeToken(text.slice(start, i), percent);
    if (token === null) return null;
    out.push(token);
    start = i + 1;
  }
  return out;
}

/** One token: %-decoded first (a fragment's `%7E1` is `~1`), then `~1` → `/` and `~0` → `~`. */
function decodeToken(raw: string, percent: boolean): string | null {
  let token = raw;
  if (percent && token.includes('%')) {
    try {
      token = decodeURIComponent(token);
    } catch {
      return null;
    }
  }
  if (!token.includes('~')) return token;
  if (/~(?![01])/.test(token)) return null;
  // One pass, so `~01` is `~1` (RFC 6901 §4: `~1` first, then `~0`, never `/`).
  return token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~'));
}
