/**
 * The one way a tool's output becomes an image on the demo page: a `data:` URL whose declared type
 * is PNG or JPEG and whose decoded bytes start with that format's signature. Anything else (an
 * `http:` or `javascript:` URL, SVG, HTML, a `.png` holding text) is shown as text instead. The
 * server already checks what Python wrote; the page checks again because it trusts no tool output.
 */

const SIGNATURES: Record<string, number[]> = {
  'image/png': [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  'image/jpeg': [0xff, 0xd8, 0xff],
};

/** `data:image/png;base64,` or `data:image/jpeg;base64,`, then base64 only, nothing after. */
const DATA_URL = /^data:(image\/(?:png|jpeg));base64,([A-Za-z0-9+/]+={0,2})$/;

/**
 * `url` when it is a base64 PNG or JPEG `data:` URL whose bytes are what it says, else null.
 *
 * @example
 * safeImageUrl('data:image/png;base64,iVBORw0KGgo…') // → the same URL
 * safeImageUrl('data:image/png;base64,PGltZz4=')     // → null ('<img>' is not a PNG)
 */
export function safeImageUrl(url: string): string | null {
  const m = DATA_URL.exec(url);
  const head = m && SIGNATURES[m[1] ?? ''];
  if (!m || !head) return null;
  // Only the first bytes matter: decode a prefix (base64 maps each 4 characters to 3 bytes).
  let bytes: string;
  try {
    bytes = atob((m[2] ?? '').slice(0, 16));
  } catch {
    return null;
  }
  return head.every((b, i) => bytes.charCodeAt(i) === b) ? url : null;
}
