/**
 * What an image's bytes say it is. A `blob:` URL names whatever the page put in the blob, and its
 * type is whatever the page said (or nothing): the bytes decide whether it is an image a model can
 * read. The core reads a request's `blob:` images with it (a 400 on the image_url when they are
 * not), and the web-llm engine with it where it reads them itself.
 */

/** The formats {@link imageMimeOf} recognises, as an error message names them. */
export const IMAGE_FORMATS = 'PNG, JPEG, WebP, GIF, BMP or AVIF';

/**
 * The MIME type of an image in one of the formats OpenAI accepts (PNG, JPEG, WebP, GIF) or that the
 * browser decodes for a local model (BMP, AVIF), from its first bytes; null for anything else.
 *
 * @example
 * imageMimeOf(new Uint8Array([0x89, 0x50, 0x4e, 0x47])) // → 'image/png'
 * imageMimeOf(new TextEncoder().encode('hello'))        // → null
 */
export function imageMimeOf(bytes: Uint8Array): string | null {
  const at = (offset: number, ascii: string) =>
    [...ascii].every((c, i) => bytes[offset + i] === c.charCodeAt(0));
  if (bytes[0] === 0x89 && at(1, 'PNG')) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (at(0, 'GIF87a') || at(0, 'GIF89a')) return 'image/gif';
  if (at(0, 'RIFF') && at(8, 'WEBP')) return 'image/webp';
  if (at(0, 'BM') && bytes.length >= 26) return 'image/bmp';
  if (at(4, 'ftypavif') || at(4, 'ftypavis')) return 'image/avif';
  return null;
}
