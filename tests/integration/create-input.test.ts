/**
 * The create surface, input side: item forms, files (inline, by URL, binary types refused) and
 * images on a model without vision.
 */
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { Engine } from '../../src/engine/types';
import '../helpers/pdf';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const transcriptOf = async (res: Response) =>
  JSON.parse((await res.json()).output[0].content[0].text) as { role: string; content: string }[];

/** `!transcript` after one file part, so the reply shows what the model read. */
const withFile = (file: Record<string, unknown>) => ({
  model: 'scripted',
  input: [
    {
      role: 'user',
      content: [
        { type: 'input_text', text: '!transcript' },
        { type: 'input_file', ...file },
      ],
    },
  ],
});

describe('input item forms', () => {
  it('reads easy and typed messages of every role, with every part kind, as the model sees them', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [
        { role: 'system', content: 'sys' },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'dev' }] },
        {
          type: 'message',
          role: 'assistant',
          content: [
            { type: 'output_text', text: 'said ', annotations: [] },
            { type: 'refusal', refusal: 'no' },
          ],
        },
        { type: 'reasoning', id: 'rs_1', summary: [], content: [{ type: 'reasoning_text', text: 'hidden' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: '!transcript' },
            { type: 'input_image', image_url: 'https://example.com/a.png', detail: 'low' },
          ],
        },
      ],
    });
    expect(await transcriptOf(res)).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'dev' },
      { role: 'assistant', content: 'said no' },
      // Reasoning items are not shown to the model again; the image reaches it as an image part.
      { role: 'user', content: '!transcript\n' },
    ]);
  });

  it('refuses output parts in a user message, naming the part', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }],
    });
    await expectError(res, 400, 'input[0].content[0].type', 'invalid_value');
  });
});

describe('input_file', () => {
  it('reads text files inline, from data: URLs and from same-origin URLs through fetchFile', async () => {
    const seen: string[] = [];
    const fetchFile = async (url: string) => {
      seen.push(url);
      return new Response('from the origin', { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    };
    const { call } = makeRig({ fetchFile });
    const inline = await call(
      'POST',
      '/responses',
      withFile({ filename: 'a.txt', file_data: b64('inline text') }),
    );
    expect((await transcriptOf(inline))[0]?.content).toBe('!transcript\n[file: a.txt]\ninline text');
    const dataUrl = await call(
      'POST',
      '/responses',
      withFile({ file_url: `data:text/csv;base64,${b64('a,b')}` }),
    );
    expect((await transcriptOf(dataUrl))[0]?.content).toBe('!transcript\na,b');
    const relative = await call('POST', '/responses', withFile({ file_url: '/files/notes.md' }));
    expect((await transcriptOf(relative))[0]?.content).toBe('!transcript\n[file: notes.md]\nfrom the origin');
    const blob = await call('POST', '/responses', withFile({ file_url: 'blob:http://intab.test/1234' }));
    expect(blob.status).toBe(200);
    expect(seen).toEqual(['http://intab.test/files/notes.md', 'blob:http://intab.test/1234']);
  });

  it('refuses file URLs it cannot read offline, with a hint', async () => {
    const { call } = makeRig();
    const remote = await call('POST', '/responses', withFile({ file_url: 'https://example.com/a.txt' }));
    expect(await expectError(remote, 400, 'input[0].content[1].file_url', 'unsupported_value')).toMatch(
      /data:, blob: or same-origin URL\. Send the file's content as file_data/,
    );
    const noFetcher = await call('POST', '/responses', withFile({ file_url: '/files/a.txt' }));
    expect(await expectError(noFetcher, 400, 'input[0].content[1].file_url')).toMatch(
      /cannot fetch file_url/,
    );
    const failing = makeRig({ fetchFile: async () => new Response('gone', { status: 404 }) });
    const missing = await failing.call('POST', '/responses', withFile({ file_url: '/files/a.txt' }));
    expect(await expectError(missing, 400, 'input[0].content[1].file_url')).toMatch(/HTTP 404/);
  });

  it('refuses binary files with a hint, by declared type or by file name', async () => {
    const { call } = makeRig();
    const pdf = await call(
      'POST',
      '/responses',
      withFile({ file_data: `data:application/pdf;base64,${b64('%PDF')}` }),
    );
    // PDFs are read for their text now (tests/integration/pdf-input.test.ts): these 4 bytes are no PDF.
    expect(await expectError(pdf, 400, 'input[0].content[1].file_data', 'unsupported_file')).toMatch(
      /could not be read: it is not a valid PDF/,
    );
    const named = await call('POST', '/responses', withFile({ filename: 'scan.png', file_data: b64('PNG') }));
    expect(await expectError(named, 400, 'input[0].content[1].file_data', 'unsupported_file')).toMatch(
      /send images as input_image parts/,
    );
    const notUtf8 = await call(
      'POST',
      '/responses',
      withFile({ file_data: Buffer.from([0xff, 0xfe]).toString('base64') }),
    );
    await expectError(notUtf8, 400, 'input[0].content[1].file_data', 'invalid_value');
  });
});

describe('input_image on a model without vision', () => {
  const textOnly: Engine = Object.assign(new ScriptedEngine(), {
    models: () => [
      { ...new ScriptedEngine().models()[0], vision: false } as ReturnType<Engine['models']>[number],
    ],
  });
  const image = { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' };

  it('answers 400 naming the part, also after history', async () => {
    const { call, client } = makeRig({ engine: textOnly });
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, image] }],
    });
    expect(await expectError(res, 400, 'input[0].content[1]', 'unsupported_value')).toMatch(
      /Image input is not supported by the model 'scripted'/,
    );
    const first = await client.responses.create({ model: 'scripted', input: 'hi' });
    const next = await call('POST', '/responses', {
      model: 'scripted',
      previous_response_id: first.id,
      input: [{ role: 'user', content: [image] }],
    });
    await expectError(next, 400, 'input[0].content[0]');
  });

  it('takes the image on the scripted model, which has vision', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', {
      model: 'scripted',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'look' }, image] }],
    });
    expect(res.status).toBe(200);
  });
});
