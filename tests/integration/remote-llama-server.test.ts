/**
 * The remote engine against a real llama.cpp `llama-server` (built by scripts/llama-server.mjs,
 * running the tiny test GGUF), through the official `openai` SDK: the Responses API served in
 * "the tab" (the core, an IndexedDB store) while each pass goes to the server. Nothing here skips:
 * a server that cannot be built or started fails these tests.
 */
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import type OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { RemoteEngine } from '../../src/engine/remote';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { DB_NAME, type IdbStore, openIdbStore } from '../../src/store/index';
import { LLAMA_BUILD_MS, LLAMA_MODEL_ID, type LlamaServer, startLlamaServer } from '../helpers/llama-server';
import { makeRig } from '../helpers/server';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { openRaw } from '../unit/fixtures/store-harness';

const KEY = 'sk-llama-test-5f3a9c';
const MODEL = LLAMA_MODEL_ID;

let llama: LlamaServer;
let factory: IDBFactory;
let store: IdbStore;
let client: OpenAI;
let call: ReturnType<typeof makeRig>['call'];

beforeAll(async () => {
  llama = await startLlamaServer({ apiKey: KEY, toolTemplate: true });
  factory = new IDBFactory();
  store = await openIdbStore({ indexedDB: factory });
  // Listed from the server's own GET /v1/models (no `models` given).
  const remote = new RemoteEngine({ servers: [{ baseURL: llama.baseURL, apiKey: KEY }] });
  ({ client, call } = makeRig({ engine: new CompositeEngine([new ScriptedEngine(), remote]), store }));
}, LLAMA_BUILD_MS);

afterAll(async () => {
  await llama?.stop();
});

/** Every record the IndexedDB store holds, as one JSON text. */
async function idbDump(): Promise<string> {
  const db = await openRaw(factory, DB_NAME);
  const out: Record<string, unknown[]> = {};
  for (const name of Array.from(db.objectStoreNames)) {
    out[name] = await new Promise((resolve, reject) => {
      const req = db.transaction(name).objectStore(name).getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  db.close();
  return JSON.stringify(out);
}

/** Whether llama-server has a slot generating now. */
async function processing(): Promise<boolean> {
  const slots = (await (
    await fetch(`${llama.origin}/slots`, { headers: { authorization: `Bearer ${KEY}` } })
  ).json()) as {
    is_processing: boolean;
  }[];
  return slots.some((s) => s.is_processing);
}

/** llama-server's count of `llama_decode` calls so far (`/metrics`): one per generated token. */
async function decodeCalls(): Promise<number> {
  const text = await (
    await fetch(`${llama.origin}/metrics`, { headers: { authorization: `Bearer ${KEY}` } })
  ).text();
  const line = text.split('\n').find((l) => l.startsWith('llamacpp:n_decode_total '));
  if (!line) throw new Error(`llama-server's /metrics has no n_decode_total:\n${text.slice(0, 500)}`);
  return Number(line.split(' ')[1]);
}

async function until(cond: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('remote engine → llama-server, through the openai SDK', () => {
  it('lists the server model with engine remote', async () => {
    const res = await call('GET', '/models');
    const { data } = (await res.json()) as { data: { id: string; engine?: string }[] };
    expect(data).toContainEqual(expect.objectContaining({ id: MODEL, engine: 'remote' }));
  });

  it('answers JSON with the server usage', async () => {
    const r = await client.responses.create({
      model: MODEL,
      input: 'Hello there',
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(r.status === 'completed' || r.status === 'incomplete').toBe(true);
    expect(r.output_text.length).toBeGreaterThan(0);
    expect(r.usage?.input_tokens).toBeGreaterThan(0);
    expect(r.usage?.output_tokens).toBeGreaterThan(0);
    expect(r.usage?.output_tokens).toBeLessThanOrEqual(16);
    expect(validateResponse(r)).toEqual([]);
  });

  it('streams SSE whose events are spec-valid, ordered, and end with usage', async () => {
    const stream = await client.responses.create({
      model: MODEL,
      input: 'Stream it',
      max_output_tokens: 16,
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const e of stream) events.push(e);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    for (const e of events) expect(validateStreamEvent(e)).toEqual([]);
    expect(events[0]?.type).toBe('response.created');
    expect(events.some((e) => e.type === 'response.output_text.delta')).toBe(true);
    const last = events.at(-1);
    expect(last?.type === 'response.completed' || last?.type === 'response.incomplete').toBe(true);
    expect((last as { response: OpenAI.Responses.Response }).response.usage?.output_tokens).toBeGreaterThan(
      0,
    );
  });

  it('max_output_tokens cut short → incomplete (max_output_tokens)', async () => {
    const r = await client.responses.create({
      model: MODEL,
      input: 'Write a long story',
      max_output_tokens: 16,
      temperature: 1,
    });
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details?.reason).toBe('max_output_tokens');
    expect(r.usage?.output_tokens).toBe(16);
  });

  it('json_schema output is constrained by the server and validates', async () => {
    const r = await client.responses.create({
      model: MODEL,
      input: 'Pick one',
      max_output_tokens: 40,
      text: {
        format: {
          type: 'json_schema',
          name: 'pick',
          strict: true,
          schema: {
            type: 'object',
            properties: { c: { enum: ['x', 'y'] } },
            required: ['c'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(r.status).toBe('completed');
    expect(['x', 'y']).toContain(JSON.parse(r.output_text).c);
  });

  it('returns logprobs with top_logprobs', async () => {
    const r = await client.responses.create({
      model: MODEL,
      input: 'Hi',
      max_output_tokens: 16,
      top_logprobs: 2,
      include: ['message.output_text.logprobs'],
    });
    const part = r.output.flatMap((o) => (o.type === 'message' ? o.content : []))[0] as {
      logprobs?: { token: string; logprob: number; top_logprobs: unknown[] }[];
    };
    expect(part.logprobs?.length).toBeGreaterThan(0);
    expect(part.logprobs?.[0]?.top_logprobs).toHaveLength(2);
    expect(part.logprobs?.[0]?.logprob).toBeLessThanOrEqual(0);
  });

  it('previous_response_id and a conversation carry two remote turns, stored locally', async () => {
    const r1 = await client.responses.create({ model: MODEL, input: 'First turn', max_output_tokens: 16 });
    const r2 = await client.responses.create({
      model: MODEL,
      input: 'Second',
      previous_response_id: r1.id,
      max_output_tokens: 16,
    });
    // The second pass carried the first turn: the server read more tokens.
    expect(r2.usage?.input_tokens).toBeGreaterThan(r1.usage?.input_tokens ?? 0);
    expect((await client.responses.retrieve(r2.id)).previous_response_id).toBe(r1.id);

    const conv = await client.conversations.create({});
    const c1 = await client.responses.create({
      model: MODEL,
      input: 'One',
      conversation: conv.id,
      max_output_tokens: 16,
    });
    const c2 = await client.responses.create({
      model: MODEL,
      input: 'Two',
      conversation: conv.id,
      max_output_tokens: 16,
    });
    expect(c2.usage?.input_tokens).toBeGreaterThan(c1.usage?.input_tokens ?? 0);
    const items = await client.conversations.items.list(conv.id, { order: 'asc', limit: 100 });
    expect(items.data.map((i) => i.type)).toEqual(['message', 'message', 'message', 'message']);
  });

  // A random-weight model calls tools deterministically only with help (the recipe): the
  // Hermes 3 tool template, tool_choice "required", and an assistant prefill that opens the call.
  // llama-server then constrains the rest with the tools' grammar and parses the prefill with it.
  const prefill = (text: string) => ({ role: 'assistant' as const, content: text });

  it('a tool call and its result round trip (Hermes template, tool_choice required, prefill)', async () => {
    const tools: OpenAI.Responses.FunctionTool[] = [
      {
        type: 'function',
        name: 'get_weather',
        description: 'Weather in a city',
        strict: true,
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', enum: ['Paris', 'Oslo'] } },
          required: ['city'],
          additionalProperties: false,
        },
      },
    ];
    const r1 = await client.responses.create({
      model: MODEL,
      input: [
        { role: 'user', content: 'What is the weather in Paris?' },
        prefill('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'),
      ],
      tools,
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_output_tokens: 64,
      temperature: 0,
    });
    const calls = r1.output.filter((o) => o.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ name: 'get_weather', status: 'completed' })]);
    const call = calls[0] as OpenAI.Responses.ResponseFunctionToolCall;
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const r2 = await client.responses.create({
      model: MODEL,
      previous_response_id: r1.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp":21}' }],
      tools,
      tool_choice: 'none',
      max_output_tokens: 16,
    });
    expect(r2.output.some((o) => o.type === 'message')).toBe(true);
    expect(r2.usage?.input_tokens).toBeGreaterThan(0);
    const items = await client.responses.inputItems.list(r2.id);
    expect(items.data.map((i) => i.type)).toContain('function_call_output');
  });

  it('a named tool_choice is obeyed: the server may only pick that tool', async () => {
    // With both tools sent, this greedy run picks 'alpha'; sent as the one tool with "required", 'beta'.
    const tool = (name: string): OpenAI.Responses.FunctionTool => ({
      type: 'function',
      name,
      strict: true,
      parameters: {
        type: 'object',
        properties: { n: { type: 'integer', enum: [1, 2] } },
        required: ['n'],
        additionalProperties: false,
      },
    });
    const r = await client.responses.create({
      model: MODEL,
      input: [{ role: 'user', content: 'Call one' }, prefill('<tool_call>\n{"name": "')],
      tools: [tool('alpha'), tool('beta')],
      tool_choice: { type: 'function', name: 'beta' },
      parallel_tool_calls: false,
      max_tool_calls: 1,
      max_output_tokens: 200,
      temperature: 0,
    });
    const calls = r.output.filter(
      (o) => o.type === 'function_call',
    ) as OpenAI.Responses.ResponseFunctionToolCall[];
    expect(calls.map((c) => c.name)).toEqual(['beta']);
    expect([1, 2]).toContain(JSON.parse(calls[0]?.arguments ?? '{}').n);
  });

  it('replays a stored remote response as the same events', async () => {
    const r = await client.responses.create({ model: MODEL, input: 'Replay me', max_output_tokens: 16 });
    const replay = await client.responses.retrieve(r.id, { stream: true });
    const events: ResponseStreamEvent[] = [];
    for await (const e of replay) events.push(e);
    const last = events.at(-1) as { response: OpenAI.Responses.Response };
    expect(last.response.output_text ?? last.response.output).toBeDefined();
    const text = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => (e as { delta: string }).delta)
      .join('');
    expect(text).toBe(r.output_text);
  });

  it('background + cancel: the run stops and the server frees its slot', async () => {
    const before = await decodeCalls();
    const r = await client.responses.create({
      model: MODEL,
      input: 'Go on for a long while',
      background: true,
      max_output_tokens: 3500,
      temperature: 1,
    });
    await until(processing, 10_000, 'the server starting to generate');
    const cancelled = await client.responses.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    // A hang guard only: what shows the cancel freed the slot is the count below, not the time.
    await until(async () => !(await processing()), 120_000, 'the slot being freed');
    // Freed by the cancel, not by the run's end: far fewer decode steps than the 3500 tokens asked.
    const decoded = (await decodeCalls()) - before;
    expect(decoded).toBeGreaterThan(0);
    expect(decoded).toBeLessThan(3500);
    expect((await client.responses.retrieve(r.id)).status).toBe('cancelled');
  });

  it('never writes the API key to IndexedDB', async () => {
    const dump = await idbDump();
    expect(dump.length).toBeGreaterThan(1000);
    expect(dump).toContain('resp_');
    expect(dump).not.toContain(KEY);
  });
});
