/**
 * A `code_interpreter` call's code streams while the model writes it, through the official
 * `openai` SDK: the item is added before its code, code deltas go out as the engine's partial call
 * (`tool_call_delta`) grows, before `interpreting`, and join to the code. The whole call's code
 * wins where a partial one disagreed; a partial call that never completes ends its item `failed`;
 * a client function call's partial chunks change none of its events.
 */
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { ScriptedEngine } from '../../src/engine/scripted';
import type { EngineChunk, GenerateRequest } from '../../src/engine/types';
import { InProcessPython } from '../helpers/python-runner-double';
import { makeRig } from '../helpers/server';

const TOOL = { type: 'code_interpreter' as const, container: { type: 'auto' as const } };
const runner = new InProcessPython();

/** Scripted, but its first pass (the user's turn) is `chunks`, one per event-loop turn. */
class PlannedEngine extends ScriptedEngine {
  constructor(private readonly chunks: EngineChunk[]) {
    super();
  }
  override async *generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk> {
    if (req.messages.at(-1)?.role !== 'user') return yield* super.generate(req, signal);
    for (const c of this.chunks) {
      await new Promise((r) => setTimeout(r, 1));
      yield c;
    }
  }
}

const usage = { input_tokens: 3, output_tokens: 4, reasoning_tokens: 0 };
const delta = (index: number, name: string, arguments_delta: string): EngineChunk => ({
  type: 'tool_call_delta',
  index,
  name,
  arguments_delta,
});

async function collect(
  client: ReturnType<typeof makeRig>['client'],
  body: Record<string, unknown>,
): Promise<{ events: ResponseStreamEvent[]; at: number[] }> {
  const stream = await client.responses.create({ model: 'scripted', stream: true, ...body } as never);
  const events: ResponseStreamEvent[] = [];
  const at: number[] = [];
  for await (const e of stream as unknown as AsyncIterable<ResponseStreamEvent>) {
    events.push(e);
    at.push(performance.now());
  }
  return { events, at };
}

const ofType = <T extends ResponseStreamEvent['type']>(events: ResponseStreamEvent[], type: T) =>
  events.filter((e): e is Extract<ResponseStreamEvent, { type: T }> => e.type === type);

beforeAll(async () => {
  await runner.run('warm', 'pass', []);
}, 120_000);

describe('code_interpreter code deltas stream as the model writes the call', () => {
  it('sends N>1 deltas, spread over the generation, before interpreting; they join to the code', async () => {
    const { client } = makeRig({ python: runner });
    const code = 'total = sum(i * i for i in range(10))\nprint("total:", total)';
    // 40 ms per piece: a delta goes out as each piece of the call is written, not all at its end.
    const { events, at } = await collect(client, { input: `!delay 40 !python ${code}`, tools: [TOOL] });
    const types = events.map((e) => e.type);
    const deltas = ofType(events, 'response.code_interpreter_call_code.delta');
    const first = types.indexOf('response.code_interpreter_call_code.delta');
    const last = types.lastIndexOf('response.code_interpreter_call_code.delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(types.indexOf('response.output_item.added')).toBeLessThan(first);
    expect(types.indexOf('response.code_interpreter_call.in_progress')).toBeLessThan(first);
    expect(last).toBeLessThan(types.indexOf('response.code_interpreter_call_code.done'));
    expect(last).toBeLessThan(types.indexOf('response.code_interpreter_call.interpreting'));
    expect(deltas.map((d) => d.delta).join('')).toBe(code);
    expect(ofType(events, 'response.code_interpreter_call_code.done')[0]?.code).toBe(code);
    // The pieces arrived as the scripted model wrote them, 40 ms apart: the first long before the last.
    expect((at[last] as number) - (at[first] as number)).toBeGreaterThan(40 * (deltas.length - 2));
    const item = ofType(events, 'response.output_item.done')[0]?.item;
    expect(item).toMatchObject({ type: 'code_interpreter_call', code, status: 'completed' });
    expect(new Set(deltas.map((d) => d.item_id))).toEqual(new Set([item?.id]));
  });

  it('a forced call (tool_choice code_interpreter) streams its code too', async () => {
    const { client } = makeRig({ python: runner });
    const { events } = await collect(client, {
      input: '!python print(6 * 7)',
      tools: [TOOL],
      tool_choice: { type: 'code_interpreter' },
    });
    const deltas = ofType(events, 'response.code_interpreter_call_code.delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.map((d) => d.delta).join('')).toBe('print(6 * 7)');
  });

  it('the whole call wins where the partial call said other code: .done and the item hold its code', async () => {
    const engine = new PlannedEngine([
      delta(0, 'python', '{"code": "print('),
      delta(0, 'python', '\\"draft\\")'),
      { type: 'tool_call', name: 'python', arguments: '{"code":"print(\\"final\\")"}' },
      { type: 'done', finishReason: 'tool_calls', usage },
    ]);
    const { client } = makeRig({ python: runner, engine });
    const { events } = await collect(client, { input: 'go', tools: [TOOL] });
    const deltas = ofType(events, 'response.code_interpreter_call_code.delta').map((d) => d.delta);
    expect(deltas).toEqual(['print(', '"draft")']);
    expect(ofType(events, 'response.code_interpreter_call_code.done')[0]?.code).toBe('print("final")');
    expect(ofType(events, 'response.output_item.done')[0]?.item).toMatchObject({
      code: 'print("final")',
      status: 'completed',
      outputs: null,
    });
  });

  it('sends the rest of the code when the partial call stopped short of it', async () => {
    const engine = new PlannedEngine([
      delta(0, 'python', '{"code": "print(1'),
      { type: 'tool_call', name: 'python', arguments: '{"code":"print(1)"}' },
      { type: 'done', finishReason: 'tool_calls', usage },
    ]);
    const { client } = makeRig({ python: runner, engine });
    const { events } = await collect(client, { input: 'go', tools: [TOOL] });
    const deltas = ofType(events, 'response.code_interpreter_call_code.delta').map((d) => d.delta);
    expect(deltas).toEqual(['print(1', ')']);
  });

  it('a partial call that never completes ends its item failed, and the response goes on', async () => {
    const engine = new PlannedEngine([
      delta(0, 'python', '{"code": "pri'),
      { type: 'text', delta: 'Never mind.' },
      { type: 'done', finishReason: 'stop', usage },
    ]);
    const { client } = makeRig({ python: runner, engine });
    const { events } = await collect(client, { input: 'go', tools: [TOOL] });
    const types = events.map((e) => e.type);
    expect(types).toContain('response.code_interpreter_call_code.delta');
    expect(ofType(events, 'response.output_item.done')[0]?.item).toMatchObject({
      type: 'code_interpreter_call',
      code: 'pri',
      status: 'failed',
    });
    expect(types).not.toContain('response.code_interpreter_call.interpreting');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('a call after one that parsed into no call (the same index again) streams as its own item', async () => {
    const engine = new PlannedEngine([
      delta(0, 'python', '{"code": "x'),
      { type: 'text', delta: 'Not a call after all. ' },
      delta(0, 'python', '{"code": "print('),
      delta(0, 'python', '2)"}'),
      { type: 'tool_call', name: 'python', arguments: '{"code":"print(2)"}' },
      { type: 'done', finishReason: 'tool_calls', usage },
    ]);
    const { client } = makeRig({ python: runner, engine });
    const { events } = await collect(client, { input: 'go', tools: [TOOL] });
    const items = ofType(events, 'response.output_item.done')
      .map((e) => e.item)
      .filter((i) => i.type === 'code_interpreter_call');
    expect(items).toMatchObject([
      { code: 'x', status: 'failed' },
      { code: 'print(2)', status: 'completed', outputs: null },
    ]);
    const second = ofType(events, 'response.code_interpreter_call_code.delta').filter(
      (d) => d.item_id === items[1]?.id,
    );
    expect(second.map((d) => d.delta)).toEqual(['print(', '2)']);
  });

  it("a client function call's partial chunks change none of its events", async () => {
    const fn = { type: 'function' as const, name: 'f', parameters: { type: 'object' }, strict: false };
    const whole: EngineChunk[] = [
      { type: 'tool_call', name: 'f', arguments: '{"a":1}' },
      { type: 'done', finishReason: 'tool_calls', usage },
    ];
    const run = async (chunks: EngineChunk[]) => {
      const { client } = makeRig({ python: runner, engine: new PlannedEngine(chunks) });
      const { events } = await collect(client, { input: 'go', tools: [fn, TOOL] });
      return events.map(({ sequence_number: _, ...e }) =>
        JSON.stringify(e).replace(/"(fc|resp|msg|call)_\w+"|"(created|completed)_at":\d+/g, 'ID'),
      );
    };
    const withDeltas = await run([delta(0, 'f', '{"a":'), delta(0, 'f', '1}'), ...whole]);
    expect(withDeltas).toEqual(await run(whole));
    expect(withDeltas.some((e) => e.includes('function_call_arguments.delta'))).toBe(true);
  });
});
