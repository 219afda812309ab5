/**
 * web-llm's image URL rewrite (issue 27, item 5): each `blob:` URL is read once per request however
 * many parts (or earlier turns) name it, and every URL echoed in an error is clipped, as the rest of
 * the project clips input it quotes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChatMessage } from '../../../src/engine/types';
import { inlineImageUrls } from '../../../src/engine/webllm/webllm-images';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const image = (url: string) => ({ type: 'image_url' as const, image_url: { url } });
const user = (...urls: string[]): ChatMessage => ({ role: 'user', content: urls.map(image) });

afterEach(() => vi.unstubAllGlobals());

/** Stubs `fetch` with `bytes` for every URL, counting the reads. */
function stubFetch(bytes: Uint8Array<ArrayBuffer> | null) {
  const fetch = vi.fn(async () => {
    if (!bytes) throw new TypeError('Failed to fetch');
    return new Response(bytes);
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

describe('inlineImageUrls', () => {
  it('reads a blob named by 500 parts across two turns once', async () => {
    const fetch = stubFetch(PNG);
    const url = 'blob:https://app.example/1';
    const turn = Array.from({ length: 250 }, () => url);
    const out = await inlineImageUrls([user(...turn), user(...turn)], 'https://app.example/');
    expect(fetch).toHaveBeenCalledTimes(1);
    const parts = out[1]?.content as Array<{ image_url: { url: string } }> | undefined;
    expect(parts?.[249]?.image_url.url).toMatch(/^data:image\/png;base64,/);
  });

  const long = `blob:https://app.example/${'x'.repeat(900_000)}`;
  const cases: [string, Uint8Array<ArrayBuffer> | null, string][] = [
    ['an unreadable blob', null, long],
    ['a blob that is no image', new TextEncoder().encode('text'), long],
    ['an unsupported scheme', PNG, `ftp://${'y'.repeat(900_000)}`],
  ];
  for (const [name, bytes, url] of cases) {
    it(`clips the 900 KB URL it quotes for ${name}`, async () => {
      stubFetch(bytes);
      const err = await inlineImageUrls([user(url)], 'https://app.example/').then(
        () => null,
        (e: Error) => e,
      );
      expect(err).toMatchObject({ status: 400 });
      expect((err as Error).message.length).toBeLessThan(600);
    });
  }
});
