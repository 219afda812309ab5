/**
 * `container_file_citation`s through the official `openai` SDK over the core, with the scripted
 * model (`!python <code>` runs the code, then the model answers quoting what it printed and the
 * files it wrote) and real Pyodide in-process: the answer's mentions of files the code wrote are
 * cited, each with its span, announced by `response.output_text.annotation.added` in the stream;
 * they come back the same from GET, `input_items` and a replay; files the code did not write, and
 * answers with no code_interpreter call before them, cite nothing.
 */
import { toFile } from 'openai';
import type {
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { InProcessPython } from '../helpers/python-runner-double';
import { makeRig, readSse } from '../helpers/server';

const TOOL = { type: 'code_interpreter' as const, container: { type: 'auto' as const } };
const runner = new InProcessPython();
const rig = () => makeRig({ python: runner });

/** Writes a PNG (standard library only) and a text file, then names them, and names others that it did not write. */
const CODE = `import zlib, struct
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(b'\\x00\\xff\\x00\\x00')) + chunk(b'IEND', b'')
open('/mnt/data/dot.png', 'wb').write(png)
open('/mnt/data/notes.txt', 'w').write('hi')
print('Chart: [the dot](sandbox:/mnt/data/dot.png), notes in notes.txt; again dot.png, not other.png or /tmp/dot.png.')`;
const INPUT = `!python ${CODE}`;

const parts = (output: { type: string }[]): ResponseOutputText[] =>
  output
    .filter((o): o is ResponseOutputMessage => o.type === 'message')
    .flatMap((m) => m.content.filter((p): p is ResponseOutputText => p.type === 'output_text'));

/** Each annotation of a text part as [the text it spans, filename]. */
const spans = (part: ResponseOutputText | undefined) =>
  (part?.annotations ?? []).map((a) =>
    a.type === 'container_file_citation'
      ? [part?.text.slice(a.start_index, a.end_index), a.filename]
      : [a.type],
  );

/** What the answer of {@link INPUT} cites, in order: its printed line, then the scripted model's list of written files. */
const CITED = [
  ['sandbox:/mnt/data/dot.png', 'dot.png'],
  ['notes.txt', 'notes.txt'],
  ['dot.png', 'dot.png'],
  ['/mnt/data/dot.png', 'dot.png'],
  ['/mnt/data/notes.txt', 'notes.txt'],
];

beforeAll(async () => {
  await runner.run('warm', 'pass', []);
}, 120_000);

describe('container_file_citation', () => {
  it('cites each mention of a file the code wrote, with its span, container and file id', async () => {
    const { client } = rig();
    const r = await client.responses.create({ model: 'scripted', input: INPUT, tools: [TOOL] });
    const [part] = parts(r.output);
    expect(part?.text).toContain('Files written: /mnt/data/dot.png, /mnt/data/notes.txt');
    expect(spans(part)).toEqual(CITED);
    const call = r.output.find((o) => o.type === 'code_interpreter_call');
    const files = await client.containers.files.list(call?.container_id as string);
    const idOf = new Map(files.data.map((f) => [f.path.replace('/mnt/data/', ''), f.id]));
    for (const a of part?.annotations ?? [])
      expect(a).toEqual({
        type: 'container_file_citation',
        container_id: call?.container_id,
        file_id: idOf.get(a.type === 'container_file_citation' ? a.filename : ''),
        filename: expect.any(String),
        start_index: expect.any(Number),
        end_index: expect.any(Number),
      });
    // A name written twice is two citations of one file.
    const dots = (part?.annotations ?? []).filter((a) => 'filename' in a && a.filename === 'dot.png');
    expect(dots).toHaveLength(3);
    expect(new Set(dots.map((a) => ('file_id' in a ? a.file_id : '')))).toEqual(
      new Set([idOf.get('dot.png')]),
    );
  });

  it('announces each citation once its mention is whole, before the text part is done', async () => {
    const { client } = rig();
    const stream = await client.responses.create({
      model: 'scripted',
      input: INPUT,
      tools: [TOOL],
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    // The SDK's own stream checks (item ids, indexes) run on every event.
    for await (const e of stream) events.push(e);
    const final = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    const [part] = parts(final.response.output);
    expect(spans(part)).toEqual(CITED);
    let text = '';
    const added: Extract<ResponseStreamEvent, { type: 'response.output_text.annotation.added' }>[] = [];
    for (const e of events) {
      if (e.type === 'response.output_text.delta') text += e.delta;
      if (e.type === 'response.output_text.annotation.added') {
        added.push(e);
        const a = e.annotation as ResponseOutputText.ContainerFileCitation;
        // Sent once the text holds the whole mention.
        expect(text.length).toBeGreaterThanOrEqual(a.end_index);
        expect(text.slice(a.start_index, a.end_index)).toBe(part?.text.slice(a.start_index, a.end_index));
      }
      if (e.type === 'response.output_text.done') expect(added).toHaveLength(CITED.length);
    }
    expect(added.map((e) => e.annotation)).toEqual(part?.annotations);
    expect(added.map((e) => e.annotation_index)).toEqual(CITED.map((_, i) => i));
    const message = final.response.output.find((o) => o.type === 'message');
    for (const e of added) expect(e).toMatchObject({ item_id: message?.id, content_index: 0 });
  });

  it('comes back the same from GET, input_items and a replay', async () => {
    const { client, call } = rig();
    const live = await readSse(
      await call('POST', '/responses', { model: 'scripted', input: INPUT, tools: [TOOL], stream: true }),
    );
    const done = live.at(-1)?.data.response as { id: string; output: { type: string }[] };
    expect(spans(parts(done.output)[0])).toEqual(CITED);
    expect(await (await call('GET', `/responses/${done.id}`)).json()).toEqual(done);
    const replay = await readSse(await call('GET', `/responses/${done.id}?stream=true`));
    const added = (frames: typeof live) =>
      frames.filter((f) => f.event === 'response.output_text.annotation.added').map((f) => f.data);
    const strip = (frames: typeof live) => added(frames).map(({ sequence_number: _, ...rest }) => rest);
    expect(strip(replay)).toEqual(strip(live));
    expect(replay.at(-1)?.data.response).toEqual(done);
    const next = await client.responses.create({
      model: 'scripted',
      input: 'which file?',
      previous_response_id: done.id,
    });
    const items = await client.responses.inputItems.list(next.id, { order: 'asc' });
    const message = items.data.find(
      (i): i is ResponseOutputMessage => i.type === 'message' && i.role === 'assistant',
    );
    expect(message).toEqual(done.output.find((o) => o.type === 'message'));
  });

  it('cites no file the code did not write: an uploaded one, or one in no container', async () => {
    const { client } = rig();
    const box = await client.containers.create({ name: 'uploads' });
    await client.containers.files.create(box.id, { file: await toFile(Buffer.from('x'), 'upload.txt') });
    const r = await client.responses.create({
      model: 'scripted',
      input: "!python open('/mnt/data/made.txt', 'w').write('y')\nprint('upload.txt made.txt ghost.txt')",
      tools: [{ type: 'code_interpreter', container: box.id }],
    });
    expect(spans(parts(r.output)[0])).toEqual([
      ['made.txt', 'made.txt'],
      ['/mnt/data/made.txt', 'made.txt'],
    ]);
  });

  it('cites nothing in an answer with no code_interpreter call before it, nor without files', async () => {
    const { client } = rig();
    const first = await client.responses.create({ model: 'scripted', input: INPUT, tools: [TOOL] });
    const next = await client.responses.create({
      model: 'scripted',
      input: 'dot.png /mnt/data/dot.png',
      previous_response_id: first.id,
    });
    expect(parts(next.output)[0]?.text).toBe('You said: dot.png /mnt/data/dot.png');
    expect(parts(next.output)[0]?.annotations).toEqual([]);
    const bare = await client.responses.create({
      model: 'scripted',
      input: "!python print('dot.png')",
      tools: [TOOL],
    });
    expect(parts(bare.output)[0]?.annotations).toEqual([]);
  });
});
