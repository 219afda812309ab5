/**
 * What a `file_url` may read: never intab's own API (which would feed stored responses into a prompt
 * or make the engine call itself), and no more bytes than a request body may carry.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../src/core/http/capped-read';
import type { FileFetcher } from '../../src/core/inputs/input-files';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const PARAM = 'input[0].content[1].file_url';

/** `!transcript` after one file part, so the reply shows what the model read. */
const withFile = (file_url: string) => ({
  model: 'scripted',
  input: [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: '!transcript' },
        { type: 'input_file', file_url },
      ],
    },
  ],
});

/** A fetcher that records what it was asked and answers every URL with `body()`. */
function recording(body: () => Response) {
  const seen: string[] = [];
  const fetchFile: FileFetcher = async (url) => {
    seen.push(url);
    return body();
  };
  return { seen, fetchFile };
}

/** A text file of `total` bytes made as it is read; `pulled()` says how much was. */
function bigFile(total: number) {
  let sent = 0;
  const chunk = 64 * 1024;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= total) return controller.close();
        const n = Math.min(chunk, total - sent);
        sent += n;
        controller.enqueue(new Uint8Array(n).fill(0x61));
      },
    },
    { highWaterMark: 0 },
  );
  return {
    response: new Response(stream, { headers: { 'content-type': 'text/plain' } }),
    pulled: () => sent,
  };
}

describe('file_url and intab’s own API', () => {
  it('refuses same-origin /v1 URLs and their root aliases, however spelled, without fetching them', async () => {
    const { seen, fetchFile } = recording(() => Response.json({ object: 'intab.storage', responses: [] }));
    const { call } = makeRig({ fetchFile });
    for (const url of [
      '/v1/intab/storage',
      '/v1/responses/resp_123',
      'http://intab.test/v1/models',
      '/files/../v1/models',
      '/v1',
      '/intab/storage',
      '/responses/resp_123',
      '/chat/completions',
      '/embeddings',
      'http://intab.test/models',
      '/conversations/conv_1/items',
    ]) {
      const res = await call('POST', '/responses', withFile(url));
      expect(await expectError(res, 400, PARAM, 'invalid_value')).toMatch(/cannot read intab's own API/);
    }
    expect(seen).toEqual([]);
  });

  it('still reads same-origin files whose path only looks like the API', async () => {
    const { seen, fetchFile } = recording(
      () => new Response('notes', { headers: { 'content-type': 'text/plain' } }),
    );
    const { call } = makeRig({ fetchFile });
    const urls = ['/v1files/a.txt', '/docs/v1/a.txt', '/models-gallery/a.txt', '/docs/responses/a.txt'];
    for (const url of urls) {
      const res = await call('POST', '/responses', withFile(url));
      expect(res.status).toBe(200);
    }
    expect(seen).toEqual(urls.map((u) => `http://intab.test${u}`));
  });

  it('refuses a same-origin file that redirected into the API', async () => {
    const fetchFile: FileFetcher = async () => {
      const res = Response.json({ object: 'intab.storage', responses: [{ id: 'resp_secret' }] });
      Object.defineProperties(res, {
        redirected: { value: true },
        url: { value: 'http://intab.test/v1/intab/storage' },
      });
      return res;
    };
    const { call } = makeRig({ fetchFile });
    const res = await call('POST', '/responses', withFile('/files/moved.txt'));
    expect(await expectError(res, 400, PARAM, 'invalid_value')).toMatch(/'\/v1\/intab\/storage'/);
  });
});

describe('file_url size', () => {
  it('stops reading a file past maxBodyBytes and answers 400 naming the input', async () => {
    const file = bigFile(64 * 1024 * 1024);
    const { call } = makeRig({ fetchFile: async () => file.response, maxBodyBytes: 100_000 });
    const res = await call('POST', '/responses', withFile('/files/huge.txt'));
    expect(await expectError(res, 400, PARAM, 'file_too_large')).toMatch(/larger than 100000 bytes/);
    expect(file.pulled()).toBeLessThanOrEqual(100_000 + 64 * 1024);
  });

  it('caps at the default body cap when none is configured, and reads a file under it', async () => {
    const over = bigFile(DEFAULT_MAX_BODY_BYTES + 1);
    const big = makeRig({ fetchFile: async () => over.response });
    const res = await big.call('POST', '/responses', withFile('/files/huge.txt'));
    await expectError(res, 400, PARAM, 'file_too_large');

    const under = bigFile(1000);
    const small = makeRig({ fetchFile: async () => under.response });
    const ok = await small.call('POST', '/responses', withFile('/files/small.txt'));
    expect(ok.status).toBe(200);
    expect(under.pulled()).toBe(1000);
  });
});
