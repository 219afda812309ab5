/**
 * `code_interpreter` inside `responses.create`, through the official `openai` SDK over the core,
 * with the scripted model (`!python <code>` calls the hosted tool, then it answers quoting the
 * tool's result) and real Pyodide in-process (tests/helpers/python-runner-double.ts) or the real
 * SandboxHost over a worker double (for the wall-time limit). The item and its events in order,
 * outputs only with the include, state in the chain's container, images, the timeout, the stored
 * round trip and replay, and validation.
 */
import type {
  ResponseCodeInterpreterToolCall,
  ResponseOutputMessage,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { SandboxHost } from '../../src/sandbox';
import { CODE_CALL_EVENTS, oneCodeDeltaStep } from '../helpers/code-call-events';
import { InProcessPython } from '../helpers/python-runner-double';
import { SandboxWorkerDouble } from '../helpers/sandbox-double';
import { makeRig, readSse } from '../helpers/server';

const TOOL = { type: 'code_interpreter' as const, container: { type: 'auto' as const } };
const INCLUDE = ['code_interpreter_call.outputs' as const];

const runner = new InProcessPython();
const rig = () => makeRig({ python: runner });

const calls = (output: { type: string }[]) =>
  output.filter((o): o is ResponseCodeInterpreterToolCall => o.type === 'code_interpreter_call');
const answer = (output: { type: string }[]) =>
  output
    .filter((o): o is ResponseOutputMessage => o.type === 'message')
    .flatMap((m) => m.content.map((p) => (p.type === 'output_text' ? p.text : '')))
    .join('');

/** A 1×1 PNG written with the standard library only (zlib and struct), as the tests write it. */
const PNG_CODE = `import zlib, struct
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(b'\\x00\\xff\\x00\\x00')) + chunk(b'IEND', b'')
open('/mnt/data/dot.png', 'wb').write(png)
open('/mnt/data/fake.png', 'w').write('<img src=x onerror=alert(1)>')
print('saved')`;

beforeAll(async () => {
  // Loads Pyodide once up front, so each test's time is its own.
  await runner.run('warm', 'pass', []);
}, 120_000);

describe('code_interpreter in responses.create', () => {
  it('streams the item and its events exactly in order, then the answer; logs "45\\n" with the include', async () => {
    const { client } = rig();
    const stream = await client.responses.create({
      model: 'scripted',
      input: '!python print(sum(range(10)))',
      tools: [TOOL],
      include: INCLUDE,
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    // The fields each event carries in the `openai` types (the vendored Open Responses spec has no code_interpreter events).
    for (const e of events.filter((e) => e.type.startsWith('response.code_interpreter_call')))
      expect(Object.keys(e).sort()).toEqual(
        [
          'item_id',
          'output_index',
          'sequence_number',
          'type',
          ...(e.type.endsWith('.delta') ? ['delta'] : e.type.endsWith('code.done') ? ['code'] : []),
        ].sort(),
      );
    // The code streams as the model writes it: several deltas in a row, which join to the code.
    const deltas = events.filter((e) => e.type === 'response.code_interpreter_call_code.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((e) => e.delta).join('')).toBe('print(sum(range(10)))');
    const types = oneCodeDeltaStep(events.map((e) => e.type));
    expect(types.slice(0, 9)).toEqual(['response.created', 'response.in_progress', ...CODE_CALL_EVENTS]);
    const added = events[2] as Extract<ResponseStreamEvent, { type: 'response.output_item.added' }>;
    expect(added.item).toMatchObject({
      type: 'code_interpreter_call',
      code: '',
      status: 'in_progress',
      outputs: null,
    });
    const done = events[7 + deltas.length] as Extract<
      ResponseStreamEvent,
      { type: 'response.output_item.done' }
    >;
    expect(done.item).toMatchObject({
      id: expect.stringMatching(/^ci_/),
      code: 'print(sum(range(10)))',
      container_id: expect.stringMatching(/^cntr_/),
      status: 'completed',
      outputs: [{ type: 'logs', logs: '45\n' }],
    });
    const final = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(final.type).toBe('response.completed');
    expect(answer(final.response.output)).toMatch(/^Tool python returned: 45\s*$/);
    expect(final.response.tools).toEqual([TOOL]);
  });

  it('streams long code as several deltas that join to the code', async () => {
    const { call } = rig();
    const code = Array.from({ length: 10 }, (_, i) => `v${i} = ${i}  # a line long enough`).join('\n');
    const frames = await readSse(
      await call('POST', '/responses', {
        model: 'scripted',
        input: `!python ${code}`,
        tools: [TOOL],
        stream: true,
      }),
    );
    const deltas = frames.filter((f) => f.event === 'response.code_interpreter_call_code.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((f) => f.data.delta).join('')).toBe(code);
    expect(frames.find((f) => f.event === 'response.code_interpreter_call_code.done')?.data.code).toBe(code);
  });

  it('leaves outputs null without the include', async () => {
    const { client } = rig();
    const r = await client.responses.create({ model: 'scripted', input: '!python print(1)', tools: [TOOL] });
    expect(calls(r.output)[0]).toMatchObject({ status: 'completed', outputs: null });
    expect(answer(r.output)).toMatch(/^Tool python returned: 1\s*$/);
  });

  it('keeps state between calls in the chain’s container (previous_response_id)', async () => {
    const { client } = rig();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!python x = 41',
      tools: [TOOL],
    });
    const second = await client.responses.create({
      model: 'scripted',
      input: '!python x += 1\nprint(x)',
      tools: [TOOL],
      include: INCLUDE,
      previous_response_id: first.id,
    });
    const [a, b] = [calls(first.output)[0], calls(second.output)[0]];
    expect(b?.container_id).toBe(a?.container_id);
    expect(b?.outputs).toEqual([{ type: 'logs', logs: '42\n' }]);
    // A named container: the same state again.
    const third = await client.responses.create({
      model: 'scripted',
      input: '!python print(x)',
      tools: [{ type: 'code_interpreter', container: a?.container_id as string }],
      include: INCLUDE,
    });
    expect(calls(third.output)[0]?.outputs).toEqual([{ type: 'logs', logs: '42\n' }]);
  });

  it('returns a PNG written to /mnt/data as a data: image output; a .png that is not one is not an image', async () => {
    const { client } = rig();
    const r = await client.responses.create({
      model: 'scripted',
      input: `!python ${PNG_CODE}`,
      tools: [TOOL],
      include: INCLUDE,
    });
    const outputs = calls(r.output)[0]?.outputs ?? [];
    expect(outputs[0]).toEqual({ type: 'logs', logs: 'saved\n' });
    const images = outputs.filter((o) => o.type === 'image');
    expect(images).toHaveLength(1);
    const url = (images[0] as { url: string }).url;
    expect(url).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    expect(answer(r.output)).toContain('Files written: /mnt/data/dot.png, /mnt/data/fake.png');
  });

  it('a traceback is a completed call whose logs show the error; the model reads it', async () => {
    const { client } = rig();
    const r = await client.responses.create({
      model: 'scripted',
      input: '!python 1/0',
      tools: [TOOL],
      include: INCLUDE,
    });
    const item = calls(r.output)[0];
    expect(item?.status).toBe('completed');
    expect(item?.outputs?.[0]).toMatchObject({
      type: 'logs',
      logs: expect.stringMatching(/ZeroDivisionError/),
    });
    expect(answer(r.output)).toMatch(/ZeroDivisionError/);
  });
});

describe('code_interpreter past the wall time', () => {
  it('ends the call failed after the timeout, the model is told, and the next call runs in a fresh sandbox', async () => {
    const workers: SandboxWorkerDouble[] = [];
    const host = new SandboxHost({
      startWorker: () => {
        const w = new SandboxWorkerDouble((code) =>
          code.includes('while True') ? 'hang' : { stdout: 'ok\n' },
        );
        workers.push(w);
        return w;
      },
      timeoutMs: 100,
      loadTimeoutMs: 0,
    });
    const { client } = makeRig({ python: host });
    // Bound: the 100 ms limit, as the call's log says; without one the request would never end.
    const r = await client.responses.create({
      model: 'scripted',
      input: '!python while True: pass',
      tools: [TOOL],
      include: INCLUDE,
    });
    expect(r.status).toBe('completed');
    // As the issue asks: the call ends failed with a log saying so.
    expect(calls(r.output)[0]).toMatchObject({
      status: 'failed',
      outputs: [{ type: 'logs', logs: expect.stringMatching(/timed out after 100 ms/) }],
    });
    expect(answer(r.output)).toMatch(/did not finish: Execution timed out after 100 ms/);
    expect(workers[0]?.terminated).toBe(true);
    const next = await client.responses.create({
      model: 'scripted',
      input: '!python print("ok")',
      tools: [TOOL],
      include: INCLUDE,
      previous_response_id: r.id,
    });
    expect(calls(next.output)[0]).toMatchObject({
      status: 'completed',
      outputs: [{ type: 'logs', logs: 'ok\n' }],
    });
    expect(workers).toHaveLength(2);
  });
});

describe('a stored code_interpreter_call round-trips', () => {
  it('GET, input_items, previous_response_id (the model sees the call and its logs), replay in the live order', async () => {
    const { client, call } = rig();
    const live = await readSse(
      await call('POST', '/responses', {
        model: 'scripted',
        input: '!python print(sum(range(10)))',
        tools: [TOOL],
        include: INCLUDE,
        stream: true,
      }),
    );
    const stored = live.at(-1)?.data.response as { id: string; output: { type: string }[] };
    const got = await client.responses.retrieve(stored.id);
    expect(calls(got.output)).toEqual(calls(stored.output));
    const replay = await readSse(await call('GET', `/responses/${stored.id}?stream=true`));
    const fold = (frames: typeof live) =>
      frames.map((f) => f.event).filter((t, i, all) => !(t.endsWith('.delta') && all[i - 1] === t));
    expect(fold(replay)).toEqual(fold(live));
    expect(replay.at(-1)?.data.response).toEqual(stored);
    const next = await client.responses.create({
      model: 'scripted',
      input: '!transcript',
      previous_response_id: stored.id,
    });
    const transcript = JSON.parse(answer(next.output)) as { role: string; content: string }[];
    expect(transcript.some((m) => m.role === 'tool' && m.content === '45\n')).toBe(true);
    const items = await client.responses.inputItems.list(next.id);
    expect(items.data.some((i) => i.type === 'code_interpreter_call')).toBe(true);
  });

  it('takes a code_interpreter_call sent back in input, as the Agents SDK resends a run', async () => {
    const { client } = rig();
    const item = {
      type: 'code_interpreter_call' as const,
      id: 'ci_sent_back',
      code: 'print(2)',
      container_id: 'cntr_gone',
      outputs: [{ type: 'logs' as const, logs: '2\n' }],
      status: 'completed' as const,
    };
    const r = await client.responses.create({
      model: 'scripted',
      input: [item, { role: 'user', content: '!transcript' }],
    });
    expect(answer(r.output)).toContain('2\\n');
  });
});
