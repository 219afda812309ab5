/**
 * Image URLs as web-llm can load them: it accepts only `data:image…` and `http…` URLs
 * (`UnsupportedImageURLError` otherwise), but pages hand over `blob:` URLs and relative paths.
 */
import { clip, invalidRequest } from '../../common/api-error';
import { bytesToBase64 } from '../../common/base64';
import { IMAGE_FORMATS, imageMimeOf } from '../image-bytes';
import type { ChatMessage } from '../types';

/**
 * Rewrites `blob:` image URLs to `data:` URLs (read here, while the blob is alive) and relative
 * ones to absolute URLs against `base`.
 *
 * @example
 * await inlineImageUrls(messages, self.location.href);
 */
export async function inlineImageUrls(
  messages: ChatMessage[],
  base: string | undefined,
): Promise<ChatMessage[]> {
  const out: ChatMessage[] = [];
  // One read per blob URL for the whole request, however many parts (or turns) name it.
  const reads = new Map<string, Promise<string>>();
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') {
      out.push(m);
      continue;
    }
    const content = [];
    for (const part of m.content) {
      if (part.type !== 'image_url') content.push(part);
      else
        content.push({
          type: 'image_url' as const,
          image_url: { url: await loadable(part.image_url.url, base, reads) },
        });
    }
    out.push({ ...m, content });
  }
  return out;
}

async function loadable(
  url: string,
  base: string | undefined,
  reads: Map<string, Promise<string>>,
): Promise<string> {
  if (/^(data:image|https?:)/i.test(url)) return url;
  if (url.startsWith('blob:')) {
    let read = reads.get(url);
    if (!read) {
      read = blobToDataUrl(url);
      reads.set(url, read);
    }
    return read;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || !base) {
    throw invalidRequest(
      'input',
      `Unsupported image URL '${clip(url, 64)}': use https:, data: or blob: URLs.`,
    );
  }
  return new URL(url, base).href;
}

async function blobToDataUrl(url: string): Promise<string> {
  let blob: Blob;
  try {
    blob = await (await fetch(url)).blob();
  } catch {
    throw invalidRequest('input', `Could not read the image at '${clip(url)}' (was its blob URL revoked?).`);
  }
  const bytes = new Uint8Array(await blob.arrayBuffer());
  // The core reads a request's blob images first where it has a fetcher (a 400 on the exact
  // image_url); this is the read for runtimes without one, and for earlier turns' images.
  const mime = imageMimeOf(bytes);
  if (!mime) {
    throw invalidRequest(
      'input',
      `The blob at '${clip(url)}' is not an image (${clip(blob.type || 'no type')}, ${bytes.length} bytes): expected ${IMAGE_FORMATS} data.`,
      'invalid_value',
    );
  }
  return `data:${mime};base64,${bytesToBase64(bytes)}`;
}
