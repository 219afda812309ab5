/**
 * Issue 27, item 5: a `blob:` image (or a `file_url`) is read once per request, however many parts
 * name it. Before, each part read it again: a 900 KB body can name one blob 15 000 times, and each
 * read brings in up to the body cap (15 GB for one request). A failed read is one 400 on the first
 * part that names it; after it nothing is stored and a normal request is answered.
 */
import { describe, expect, it } from 'vitest';
import { recordingEngine } from '../helpers/engines';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const TEXT = new TextEncoder().encode('hello from a file');
const blob = (id: string) => `blob:http://intab.test/${id}`;

/** A rig whose fetcher serves `files` and counts every read, per URL. */
function countingRig(files: Record<string, Uint8Array<ArrayBuffer>>) {
  const reads = new Map<string, number>();
  const { engine, sent } = recordingEngine();
  const fetchFile = async (u: string) => {
    reads.set(u, (reads.get(u) ?? 0) + 1);
    const bytes = files[u];
    if (!bytes) throw new TypeError('Failed to fetch');
    return new Response(bytes, { headers: { 'content-type': 'text/plain' } });
  };
  return { ...makeRig({ engine, fetchFile }), reads, sent };
}

const N = 2000;
const imageParts = (u: string) => Array.from({ length: N }, () => ({ type: 'input_image', image_url: u }));

async function stillServes(rig: ReturnType<typeof makeRig>): Promise<void> {
  const res = await rig.call('POST', '/responses', { model: 'scripted', input: 'still here', store: false });
  expect(res.status).toBe(200);
}

describe('one read per URL per request', () => {
  it(`/responses: one blob named by ${N} image parts is read once`, async () => {
    const rig = countingRig({ [blob('png')]: PNG });
    const res = await rig.call('POST', '/responses', {
      model: 'scripted',
      store: false,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, ...imageParts(blob('png'))] }],
    });
    expect(res.status).toBe(200);
    expect(rig.reads.get(blob('png'))).toBe(1);
    const parts = rig.sent[0]?.at(-1)?.content as Array<{ image_url?: { url: string } }>;
    expect(parts.filter((p) => p.image_url?.url.startsWith('data:image/png;base64,'))).toHaveLength(N);
  });

  // 200: each file's text goes into the prompt, and 2000 of them would not fit the context.
  it('/responses: one file_url named by 200 file parts is read once', async () => {
    const rig = countingRig({ [blob('txt')]: TEXT });
    const files = Array.from({ length: 200 }, () => ({ type: 'input_file', file_url: blob('txt') }));
    const res = await rig.call('POST', '/responses', {
      model: 'scripted',
      store: false,
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'read' }, ...files] }],
    });
    expect(res.status).toBe(200);
    expect(rig.reads.get(blob('txt'))).toBe(1);
  });

  it('/responses: a revoked blob named twice is one read and one 400 on the first part', async () => {
    const rig = countingRig({});
    const res = await rig.call('POST', '/responses', {
      model: 'scripted',
      input: [{ role: 'user', content: imageParts(blob('gone')).slice(0, 2) }],
    });
    await expectError(res, 400, 'input[0].content[0].image_url', 'invalid_value');
    expect(rig.reads.get(blob('gone'))).toBe(1);
    expect((await rig.store.listRecent(10)).responses).toHaveLength(0);
    await stillServes(rig);
  });

  it(`/chat/completions: one blob named by ${N} image parts is read once`, async () => {
    const rig = countingRig({ [blob('png')]: PNG });
    const parts = Array.from({ length: N }, () => ({ type: 'image_url', image_url: { url: blob('png') } }));
    const res = await rig.call('POST', '/chat/completions', {
      model: 'scripted',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, ...parts] }],
    });
    expect(res.status).toBe(200);
    expect(rig.reads.get(blob('png'))).toBe(1);
  });

  it('each request reads for itself: a second request reads the blob again', async () => {
    const rig = countingRig({ [blob('png')]: PNG });
    const body = {
      model: 'scripted',
      store: false,
      input: [{ role: 'user', content: imageParts(blob('png')).slice(0, 3) }],
    };
    expect((await rig.call('POST', '/responses', body)).status).toBe(200);
    expect((await rig.call('POST', '/responses', body)).status).toBe(200);
    expect(rig.reads.get(blob('png'))).toBe(2);
  });
});
