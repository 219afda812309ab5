/**
 * OpenAI-style ids: a prefix and 48 hex characters (`resp_67cc…`). Random, so ids never collide
 * across tabs or reloads.
 *
 * @example
 * newId('resp') // → 'resp_3f9a…'
 */
export function newId(
  prefix:
    | 'resp'
    | 'msg'
    | 'fc'
    | 'call'
    | 'rs'
    | 'conv'
    | 'cmp'
    | 'fco'
    | 'ctc'
    | 'ctco'
    | 'fs'
    | 'vs'
    | 'vsfb'
    | McpIdPrefix
    | ClientIdPrefix,
): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `${prefix}_${hex}`;
}

/**
 * A Chat Completions id: OpenAI writes these with a hyphen, `chatcmpl-…`, unlike its other ids.
 *
 * @example
 * newChatCompletionId() // → 'chatcmpl-3f9a…'
 */
export function newChatCompletionId(): string {
  return `chatcmpl-${newId('call').slice('call_'.length)}`;
}

/** The `mcp` tool's items: `mcpl_` listings, `mcp_` calls, `mcpr_` approval requests, `mcpa_` answers. */
type McpIdPrefix = 'mcpl' | 'mcp' | 'mcpr' | 'mcpa';

/** The client tools' items (issue 45): shell, apply_patch, local_shell and tool_search calls, and outputs sent without an id. */
type ClientIdPrefix = 'sh' | 'sho' | 'apc' | 'apco' | 'lsh' | 'lsho' | 'tsc' | 'tso';

/**
 * The longest id intab takes from a request. Its own ids are 53 characters at most; OpenAI's run a
 * little longer. The bound keeps a stored key, a lookup and an error's quote of it small.
 */
export const MAX_ID_CHARS = 256;

/** What an id may hold after its prefix: letters, digits, `_` and `-`, as OpenAI's ids do. */
const ID_CHARS = /^[A-Za-z0-9_-]+$/;

/**
 * Whether `id` is a well-formed id of `prefix` (`resp_…`): the prefix and `_`, then OpenAI's id
 * characters, at most {@link MAX_ID_CHARS} in all (issue 43: `resp_openresponses_missing_1796…`
 * was refused for its `_`, where OpenAI looks it up and answers that it does not exist).
 *
 * @example
 * isWellFormedId('resp_openresponses_missing_17', 'resp') // → true
 * isWellFormedId('resp_a.b', 'resp')                      // → false
 */
export function isWellFormedId(id: string, prefix: string): boolean {
  return (
    id.length <= MAX_ID_CHARS &&
    id.length > prefix.length + 1 &&
    id.startsWith(`${prefix}_`) &&
    ID_CHARS.test(id.slice(prefix.length + 1))
  );
}
