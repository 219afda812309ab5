/**
 * PDF `input_file` and `file_id` inputs (issue 22, part 5): a PDF made in the test (text on three
 * pages) sent as `file_data`, as a same-origin `file_url` and as a `file_id` from `/v1/files` reaches
 * the model as `[file: name.pdf]` then one `--- page N ---` block per page; a scanned PDF is a 400
 * `unsupported_file`; `input_image.file_id` reads the uploaded image; an unknown id is a 400 on the
 * part's `file_id`. The scripted model's `!transcript` shows the prompt the model got.
 */
import { toFile } from 'openai';
import { describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { GenerateRequest } from '../../src/engine/types';
import { makePdf, THREE_PAGES } from '../helpers/pdf';
import { makeRig } from '../helpers/server';
import { expectError } from './create-helpers';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const PDF = makePdf(THREE_PAGES);
const EXPECTED = `[file: three.pdf]\n${THREE_PAGES.map((t, i) => `--- page ${i + 1} ---\n${t}`).join('\n\n')}`;

const withPart = (part: Record<string, unknown>) => ({
  model: 'scripted',
  input: [{ role: 'user', content: [{ type: 'input_text', text: '!transcript' }, part] }],
});

async function promptOf(res: Response): Promise<unknown> {
  expect(res.status).toBe(200);
  const body = await res.json();
  return (JSON.parse(body.output[0].content[0].text) as { content: unknown }[])[0]?.content;
}

describe('PDF input_file', () => {
  it('as file_data: every page reaches the prompt, in order', async () => {
    const { call } = makeRig();
    const res = await call(
      'POST',
      '/responses',
      withPart({
        type: 'input_file',
        filename: 'three.pdf',
        file_data: `data:application/pdf;base64,${b64(PDF)}`,
      }),
    );
    expect(await promptOf(res)).toBe(`!transcript\n${EXPECTED}`);
  });

  it('as a same-origin file_url', async () => {
    const fetchFile = async () => new Response(PDF, { headers: { 'content-type': 'application/pdf' } });
    const { call } = makeRig({ fetchFile });
    const res = await call(
      'POST',
      '/responses',
      withPart({ type: 'input_file', file_url: '/docs/three.pdf' }),
    );
    expect(await promptOf(res)).toBe(`!transcript\n${EXPECTED}`);
  });

  it('as a file_id uploaded through /v1/files', async () => {
    const { call, client } = makeRig();
    const file = await client.files.create({ file: await toFile(PDF, 'three.pdf'), purpose: 'user_data' });
    const res = await call('POST', '/responses', withPart({ type: 'input_file', file_id: file.id }));
    expect(await promptOf(res)).toBe(`!transcript\n${EXPECTED}`);
  });

  it('a PDF sent as octet-stream with no name is still read by its signature', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/responses', withPart({ type: 'input_file', file_data: b64(PDF) }));
    expect(await promptOf(res)).toBe(`!transcript\n${EXPECTED.slice('[file: three.pdf]\n'.length)}`);
  });

  it('a scanned PDF (no text layer) is a 400 unsupported_file that says so, by every route', async () => {
    const scanned = makePdf([null, null]);
    const { call, client } = makeRig({
      fetchFile: async () => new Response(scanned, { headers: { 'content-type': 'application/pdf' } }),
    });
    const inline = await call(
      'POST',
      '/responses',
      withPart({
        type: 'input_file',
        filename: 'scan.pdf',
        file_data: `data:application/pdf;base64,${b64(scanned)}`,
      }),
    );
    expect(await expectError(inline, 400, 'input[0].content[1].file_data', 'unsupported_file')).toMatch(
      /'scan\.pdf' has no text layer: it looks scanned/,
    );
    const byUrl = await call('POST', '/responses', withPart({ type: 'input_file', file_url: '/scan.pdf' }));
    await expectError(byUrl, 400, 'input[0].content[1].file_url', 'unsupported_file');
    const file = await client.files.create({ file: await toFile(scanned, 'scan.pdf'), purpose: 'user_data' });
    const byId = await call('POST', '/responses', withPart({ type: 'input_file', file_id: file.id }));
    await expectError(byId, 400, 'input[0].content[1].file_id', 'unsupported_file');
  });
});

describe('file_id inputs', () => {
  it('input_file.file_id reads a text file with its uploaded name', async () => {
    const { call, client } = makeRig();
    const file = await client.files.create({
      file: await toFile(new TextEncoder().encode('from the files api'), 'notes.md'),
      purpose: 'user_data',
    });
    const res = await call('POST', '/responses', withPart({ type: 'input_file', file_id: file.id }));
    expect(await promptOf(res)).toBe('!transcript\n[file: notes.md]\nfrom the files api');
  });

  it('an unknown or deleted file id is a 400 on the part, in the Files API words', async () => {
    const { call, client } = makeRig();
    const unknown = await call('POST', '/responses', withPart({ type: 'input_file', file_id: 'file-nope' }));
    expect(await expectError(unknown, 400, 'input[0].content[1].file_id')).toBe(
      'No such File object: file-nope',
    );
    const file = await client.files.create({
      file: await toFile(new Uint8Array([1]), 'x.txt'),
      purpose: 'user_data',
    });
    await client.files.delete(file.id);
    const deleted = await call('POST', '/responses', withPart({ type: 'input_file', file_id: file.id }));
    await expectError(deleted, 400, 'input[0].content[1].file_id');
    const image = await call(
      'POST',
      '/responses',
      withPart({ type: 'input_image', file_id: 'file-nope', detail: 'auto' }),
    );
    await expectError(image, 400, 'input[0].content[1].file_id');
  });

  it('input_image.file_id reaches the engine as the uploaded image', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const seen: GenerateRequest[] = [];
    class SpyEngine extends ScriptedEngine {
      override generate(req: GenerateRequest, signal: AbortSignal) {
        seen.push(req);
        return super.generate(req, signal);
      }
    }
    const { call, client } = makeRig({ engine: new SpyEngine() });
    const file = await client.files.create({ file: await toFile(png, 'dot.png'), purpose: 'vision' });
    const res = await call(
      'POST',
      '/responses',
      withPart({ type: 'input_image', file_id: file.id, detail: 'auto' }),
    );
    expect(res.status).toBe(200);
    expect(JSON.stringify(seen[0]?.messages)).toContain(
      JSON.stringify({ type: 'image_url', image_url: { url: `data:image/png;base64,${b64(png)}` } }),
    );
    const text = await call('POST', '/responses', withPart({ type: 'input_file', file_id: file.id }));
    // The same bytes as a file: a PNG is no text, so the translation refuses it with its hint.
    await expectError(text, 400, 'input[0].content[1].file_data', 'unsupported_file');
    const notImage = await client.files.create({
      file: await toFile(new Uint8Array([1, 2]), 'x.png'),
      purpose: 'vision',
    });
    const bad = await call(
      'POST',
      '/responses',
      withPart({ type: 'input_image', file_id: notImage.id, detail: 'auto' }),
    );
    expect(await expectError(bad, 400, 'input[0].content[1].file_id', 'invalid_value')).toMatch(
      /is not an image/,
    );
  });
});

describe('Chat Completions file parts', () => {
  const chatPrompt = async (client: ReturnType<typeof makeRig>['client'], file: Record<string, string>) => {
    const res = await client.chat.completions.create({
      model: 'scripted',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '!transcript' },
            { type: 'file', file },
          ],
        },
      ],
    });
    return (JSON.parse(res.choices[0]?.message.content ?? '[]') as { content: unknown }[])[0]?.content;
  };

  it('file.file_id and a PDF file.file_data read as they do in /v1/responses', async () => {
    const { client } = makeRig();
    const uploaded = await client.files.create({
      file: await toFile(PDF, 'three.pdf'),
      purpose: 'user_data',
    });
    expect(await chatPrompt(client, { file_id: uploaded.id })).toBe(`!transcript\n${EXPECTED}`);
    expect(
      await chatPrompt(client, {
        filename: 'three.pdf',
        file_data: `data:application/pdf;base64,${b64(PDF)}`,
      }),
    ).toBe(`!transcript\n${EXPECTED}`);
  });

  it('an unknown file id is a 400 on messages[i].content[j].file.file_id', async () => {
    const { call } = makeRig();
    const res = await call('POST', '/chat/completions', {
      model: 'scripted',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'file', file: { file_id: 'file-nope' } },
          ],
        },
      ],
    });
    await expectError(res, 400, 'messages[0].content[1].file.file_id');
  });
});
