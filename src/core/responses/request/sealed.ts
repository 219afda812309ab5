/**
 * Opaque strings intab hands out and reads back (`encrypted_content` of compaction and reasoning
 * items). Not encryption: nothing secret leaves the tab. They are only opaque, so clients treat
 * them as OpenAI's, and versioned by prefix, so a foreign or altered string is recognised.
 */

import { base64ToBytes, bytesToBase64 } from '../../../common/base64';
import { parseJsonBounded } from '../../validation/json-depth';

/**
 * Seals `value` as `<prefix>` + base64(UTF-8 JSON).
 *
 * @example
 * seal('intab.rs.v1.', { content: [] }) // → 'intab.rs.v1.eyJjb250ZW50IjpbXX0='
 */
export function seal(prefix: string, value: unknown): string {
  return prefix + bytesToBase64(new TextEncoder().encode(JSON.stringify(value)));
}

/**
 * Reads back what {@link seal} made; undefined for anything else.
 *
 * @example
 * unseal('intab.rs.v1.', seal('intab.rs.v1.', 1)) // → 1
 */
export function unseal(prefix: string, sealed: string): unknown {
  if (!sealed.startsWith(prefix)) return undefined;
  try {
    const bytes = base64ToBytes(sealed.slice(prefix.length));
    // Clients hand these back, so they are outside input: bounded in depth like a request body.
    return parseJsonBounded(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
