/**
 * Base64 over bytes, for the places that carry binary through JSON or URLs: `data:` URLs of images and
 * files, sealed reasoning items, base64 embeddings. `btoa`/`atob` work on "binary strings" (one char
 * per byte), so every caller needs the same conversion around them.
 */

/**
 * Base64 of `bytes`. Built in slices: `String.fromCharCode(...bytes)` on a whole large array would
 * overflow the argument list, and one char at a time is slow on a megabyte.
 *
 * @example
 * bytesToBase64(new TextEncoder().encode('hi')) // → 'aGk='
 */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The bytes of a base64 string; throws (as `atob` does) on one that is not base64.
 *
 * @example
 * new TextDecoder().decode(base64ToBytes('aGk=')) // → 'hi'
 */
export function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}
