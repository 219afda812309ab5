/**
 * OpenAI-style ids: a prefix and 48 hex characters (`resp_67cc…`). Random, so ids never collide
 * across tabs or reloads.
 *
 * @example
 * newId('resp') // → 'resp_3f9a…'
 */
export function newId(
  prefix: 'resp' | 'msg' | 'fc' | 'call' | 'rs' | 'conv' | 'cmp' | 'fco' | 'fs' | 'vs' | 'vsfb' | McpIdPrefix,
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
