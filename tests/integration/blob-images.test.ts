/**
 * `blob:` image URLs (issue 15's image URL policy): a page may hand over a same-origin blob of an
 * image it holds, but a blob holds whatever the page put there. Where the runtime can read it (the
 * engine worker passes its `fetch`), the core reads it before the run: an image goes to the engine
 * as a `data:` URL, anything else is OpenAI's 400 `invalid_value` on the image_url, never a 5xx, a
 * failed run, or text handed to the model as a picture.
 */
import { describe, expect, it } from 'vitest';
import { imageMimeOf } from '../../src/engine/image-bytes';
import { recordingEngine } from '../helpers/engines';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const TEXT = new TextEncoder().encode('not a picture at all');
const url = (id: string) => `blob:http://intab.test/${id}`;

/** A rig whose fetcher serves these blobs (anything else fails, as a revoked blob URL does). */
function blobRig(blobs: Record<string, { bytes: Uint8Array<ArrayBuffer>; type: string }>) {
  const { engine, sent } = recordingEngine();
  const fetchFile = async (u: string) => {
    const blob = blobs[u];
    if (!blob) throw new TypeError('Failed to fetch');
    return new Response(blob.bytes, { headers: blob.type ? { 'content-type': blob.type } : {} });
  };
  return { ...makeRig({ engine, fetchFile }), sent };
}

const image = (imageUrl: string, stream = false) => ({
  model: 'scripted',
  stream,
  input: [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: 'what is this?' },
        { type: 'input_image', image_url: imageUrl },
      ],
    },
  ],
});

describe('blob: image URLs on /responses', () => {
  const blobs = {
    [url('png')]: { bytes: PNG, type: '' },
    [url('text')]: { bytes: TEXT, type: 'text/plain' },
    [url('lying')]: { bytes: TEXT, type: 'image/png' },
    [url('empty')]: { bytes: new Uint8Array(), type: 'image/png' },
  };

  it('reads an image blob into a data: URL for the engine; the stored item keeps the blob URL', async () => {
    const { call, sent, store } = blobRig(blobs);
    const res = await call('POST', '/responses', image(url('png')));
    expect(res.status).toBe(200);
    const parts = sent[0]?.at(-1)?.content as Array<{ type: string; image_url?: { url: string } }>;
    expect(parts[1]?.image_url?.url).toBe(`data:image/png;base64,${btoa(String.fromCharCode(...PNG))}`);
    const { id } = await res.json();
    const stored = await store.getResponse(id);
    expect(JSON.stringify(stored?.inputItems)).toContain(url('png'));
  });

  for (const [name, id] of [
    ['text', 'text'],
    ['text the page typed image/png', 'lying'],
    ['nothing', 'empty'],
    ['a revoked URL', 'revoked'],
  ] as const) {
    it(`refuses a blob of ${name} with a 400 on the image_url, before anything runs or is stored`, async () => {
      const { call, sent, store } = blobRig(blobs);
      for (const stream of [false, true]) {
        const res = await call('POST', '/responses', image(url(id), stream));
        const message = await expectError(res, 400, 'input[0].content[1].image_url', 'invalid_value');
        expect(message).toMatch(id === 'revoked' ? /could not be read/ : /is not an image/);
      }
      expect(sent).toHaveLength(0);
      expect((await store.listRecent(10)).responses).toHaveLength(0);
    });
  }

  it('leaves blob: URLs to the engine where the runtime gives no fetcher (as before)', async () => {
    const res = await makeRig().call('POST', '/responses', image(url('text')));
    expect(res.status).toBe(200);
  });
});

describe('blob: image URLs on /chat/completions', () => {
  const chat = (imageUrl: string) => ({
    model: 'scripted',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this?' },
          { type: 'image_url', image_url: { url: imageUrl } },
        ],
      },
    ],
  });

  it('reads an image blob, and refuses one of text with a 400 on messages[i].content[j].image_url.url', async () => {
    const { call, sent } = blobRig({
      [url('png')]: { bytes: PNG, type: 'image/png' },
      [url('text')]: { bytes: TEXT, type: '' },
    });
    expect((await call('POST', '/chat/completions', chat(url('png')))).status).toBe(200);
    const parts = sent[0]?.at(-1)?.content as Array<{ image_url?: { url: string } }>;
    expect(parts[1]?.image_url?.url).toMatch(/^data:image\/png;base64,/);
    const res = await call('POST', '/chat/completions', chat(url('text')));
    expect(await expectError(res, 400, 'messages[0].content[1].image_url.url', 'invalid_value')).toMatch(
      /is not an image \(no type, 20 bytes\)/,
    );
  });
});

describe('imageMimeOf', () => {
  it('knows the image formats by their first bytes, and nothing else', () => {
    const ascii = (s: string) => new Uint8Array([...s].map((c) => c.charCodeAt(0)));
    expect(imageMimeOf(PNG)).toBe('image/png');
    expect(imageMimeOf(new Uint8Array([0xff, 0xd8, 0xff, 0xe0]))).toBe('image/jpeg');
    expect(imageMimeOf(ascii('GIF89a....'))).toBe('image/gif');
    expect(imageMimeOf(ascii('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(imageMimeOf(ascii('\0\0\0\x1cftypavif'))).toBe('image/avif');
    expect(imageMimeOf(TEXT)).toBeNull();
    expect(imageMimeOf(ascii('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeNull();
    expect(imageMimeOf(new Uint8Array())).toBeNull();
  });
});
