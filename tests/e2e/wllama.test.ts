/**
 * Real inference in Chromium through the real service worker: llama.cpp (wllama's WebAssembly)
 * runs the tiny test GGUF (scripts/build-test-gguf.mjs: Llama 3 vocabulary and chat template,
 * random weights), so every token here is computed, if gibberish. Each request goes page → service
 * worker → engine worker → llama.cpp's own worker, and back as the same JSON and SSE OpenAI sends.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import llama3Tokenizer from 'llama3-tokenizer-js';
import type { Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { type AppSession, openApp } from './harness';
import {
  abortThenNext,
  addPickedFile,
  embeddingsError,
  inputTokens,
  listModels,
  loadWithProgress,
  sdkChat,
  sdkCreate,
  sdkEmbed,
  streamBothWays,
} from './wllama.page';

const TINY_URL = '/test-models/intab-tiny-random.gguf';
/** No token, no prompt progress for this long: the instance is declared hung and discarded. */
const STALL_MS = 10_000;
const options = {
  wllama: {
    stallTimeoutMs: STALL_MS,
    maxLoaded: 2,
    models: [
      { id: 'tiny', url: TINY_URL, label: 'tiny random model' },
      { id: 'tiny-embed', url: TINY_URL, kind: 'embeddings' },
      // wllama's own fault injection: llama.cpp calls abort() when it sends its first result.
      { id: 'crashy', url: TINY_URL, loadOptions: { pooling_type: 'test_stack_trace_abort' } },
    ],
  },
};
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[]; consoleLines: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default ? addFormats.default(ajv) : (addFormats as unknown as (a: Ajv2020) => void)(ajv);

type Json = Record<string, unknown>;
const outputText = (r: Json | null): string =>
  ((r?.output as Json[] | undefined) ?? [])
    .flatMap((item) => (item.type === 'message' ? (item.content as Json[]) : []))
    .map((c) => String(c.text ?? ''))
    .join('');
/** The first choice of a chat completion, or an empty object. */
const choiceOf = (r: { completion: Json | null }): Json => ((r.completion?.choices ?? []) as Json[])[0] ?? {};
const usageOf = (r: Json | null) =>
  r?.usage as {
    input_tokens: number;
    output_tokens: number;
    input_tokens_details: { cached_tokens: number };
  };

describe('loading a GGUF model', () => {
  it('lists the GGUF models with their engine, not yet cached, before any load', async () => {
    const models = await app.page.evaluate(listModels);
    const tiny = models.find((m) => m.id === 'tiny');
    expect(tiny).toMatchObject({ engine: 'wllama', owned_by: 'wllama', cached: false });
    expect(tiny?.device).toBeUndefined();
    expect(models.find((m) => m.id === 'scripted')).toBeTruthy();
  });

  it('reports download and load progress, ending ready, then lists the model as cached and where it runs', async () => {
    const { reports, error } = await app.page.evaluate(loadWithProgress, 'tiny');
    expect(error).toBeNull();
    expect(reports.some((r) => r.text.startsWith("Fetching 'tiny'"))).toBe(true);
    expect(reports.some((r) => /MB/.test(r.text))).toBe(true);
    expect(reports.some((r) => /Starting llama\.cpp/.test(r.text))).toBe(true);
    const progress = reports.map((r) => r.progress);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(reports.at(-1)).toMatchObject({ progress: 1 });
    expect(reports.at(-1)?.text).toMatch(/ready \(llama\.cpp on the CPU\)/);
    const tiny = (await app.page.evaluate(listModels)).find((m) => m.id === 'tiny');
    expect(tiny).toMatchObject({ cached: true, device: 'cpu' });
  });
});

describe('generation', () => {
  it('answers JSON with real tokens: valid against the spec, usage from llama.cpp', async () => {
    const { response, error } = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'Hello there',
      max_output_tokens: 20,
      temperature: 0,
    });
    expect(error).toBeNull();
    expect(validateResponse(response)).toEqual([]);
    expect(outputText(response).length).toBeGreaterThan(0);
    const usage = usageOf(response);
    // The prompt as Meta's Llama 3 template renders it, counted by an independent tokenizer.
    const prompt =
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello there<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\n';
    const expected = llama3Tokenizer.encode(prompt, { bos: false, eos: false }).length;
    expect(usage.input_tokens).toBe(expected);
    expect(usage.output_tokens).toBe(20);
    // The input_tokens route counts with llama.cpp itself once the model is loaded.
    expect(await app.page.evaluate(inputTokens, { model: 'tiny', input: 'Hello there' })).toEqual({
      count: expected,
      how: 'exact',
    });
  });

  it('streams SSE that passes the spec schemas and the SDK stream helper, deltas adding up to the text', async () => {
    const s = await app.page.evaluate(streamBothWays, {
      model: 'tiny',
      input: 'Write something',
      max_output_tokens: 24,
      temperature: 0,
    });
    expect(s.status).toBe(200);
    for (const event of s.events) expect(validateStreamEvent(event), event.type).toEqual([]);
    const types = s.events.map((e) => e.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.incomplete');
    const deltas = s.events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(3);
    const done = s.events.find((e) => e.type === 'response.output_text.done') as unknown as { text: string };
    expect(deltas.map((d) => (d as unknown as { delta: string }).delta).join('')).toBe(done.text);
    expect(s.sdkTypes).toEqual(types);
    expect(validateResponse(s.sdkFinal)).toEqual([]);
    // Greedy decoding: the second (SDK) stream computed the same tokens.
    expect(s.sdkDeltas).toBe(done.text);
  });

  it('stops at max_output_tokens: exactly N output tokens, status incomplete', async () => {
    for (const n of [16, 37]) {
      const { response } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'Count to a hundred',
        max_output_tokens: n,
        temperature: 0.8,
      });
      expect(usageOf(response).output_tokens).toBe(n);
      expect(response?.status).toBe('incomplete');
      expect(response?.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    }
  });

  it('gives the same text for the same seed and input, another for another seed (chat completions)', async () => {
    const ask = (seed: number) =>
      app.page.evaluate(sdkChat, {
        model: 'tiny',
        messages: [{ role: 'user', content: 'Tell me something random' }],
        temperature: 1,
        seed,
        max_tokens: 24,
      });
    const [a, b, c] = [await ask(42), await ask(42), await ask(7)];
    const text = (r: Awaited<ReturnType<typeof ask>>) =>
      String((choiceOf(r).message as Json | undefined)?.content);
    expect(a.error).toBeNull();
    expect(text(a)).toBe(text(b));
    expect(text(a)).not.toBe(text(c));
    const usage = a.completion?.usage as { completion_tokens: number };
    expect(usage.completion_tokens).toBe(24);
  });

  it('keeps tokens that are not valid UTF-8 out of logprobs, so llama.cpp survives hot sampling with them', async () => {
    // Unguarded, a token like these in the top logprobs aborts the wasm instance
    // (json.exception.type_error.316) within a few dozen tokens at this temperature.
    const r = await app.page.evaluate(sdkChat, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'hi' }],
      temperature: 2,
      seed: 0,
      max_tokens: 120,
      logprobs: true,
      top_logprobs: 5,
    });
    expect(r.error).toBeNull();
    const choice = choiceOf(r);
    const content = (choice.logprobs as { content: { bytes: number[]; top_logprobs: unknown[] }[] }).content;
    // One entry per token with text: 120 tokens decoded, and with the f32 KV cache (issue 23) this
    // seed's 120th token carries no text of its own (the entries' tokens still join to the whole
    // message), so it has no entry.
    expect(choice.finish_reason).toBe('length');
    expect(content.length).toBeGreaterThanOrEqual(119);
    expect(content.length).toBeLessThanOrEqual(120);
    for (const t of content) {
      expect(t.top_logprobs).toHaveLength(5);
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(t.bytes))).not.toThrow();
    }
  });
});

describe('KV cache', () => {
  it('reuses the first turn on the second: far fewer prompt tokens evaluated than sent', async () => {
    const story = 'The quick brown fox jumps over the lazy dog near the river bank. '.repeat(20);
    const first = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: `${story}\nSummarise.`,
      max_output_tokens: 16,
      temperature: 0,
    });
    const second = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      previous_response_id: first.response?.id,
      input: 'Shorter, please.',
      max_output_tokens: 16,
      temperature: 0,
    });
    const u1 = usageOf(first.response);
    const u2 = usageOf(second.response);
    expect(u1.input_tokens).toBeGreaterThan(250);
    expect(u2.input_tokens).toBeGreaterThan(u1.input_tokens);
    // The whole first prompt came from the cache; only the rest was evaluated.
    expect(u2.input_tokens_details.cached_tokens).toBeGreaterThanOrEqual(u1.input_tokens - 1);
    const evaluated = u2.input_tokens - u2.input_tokens_details.cached_tokens;
    expect(evaluated).toBeLessThan(u2.input_tokens / 5);
  });
});

describe('abort', () => {
  it('stops decoding within about one token of the abort, and the next request is not held up', async () => {
    const before = app.consoleLines.length;
    const r = await app.page.evaluate(abortThenNext, {
      body: { model: 'tiny', input: 'Go on forever', max_output_tokens: 2000 },
      afterDeltas: 5,
      next: { model: 'tiny', input: 'Next', max_output_tokens: 16, temperature: 0 },
    });
    expect(r.deltasBeforeAbort).toBeGreaterThanOrEqual(5);
    expect(r.nextStatus).toBe(200);
    // 2000 tokens at tens of ms each would take over a minute; the next answer comes in seconds.
    expect(r.nextMs).toBeLessThan(15_000);
    let stopped: RegExpExecArray | null = null;
    for (let i = 0; i < 50 && !stopped; i++) {
      stopped = app.consoleLines
        .slice(before)
        .map((l) => /generation stopped (\d+) token\(s\) after the abort \((\d+) ms\)/.exec(l))
        .find(Boolean) as RegExpExecArray | null;
      if (!stopped) await new Promise((res) => setTimeout(res, 100));
    }
    expect(stopped, app.consoleLines.slice(before).join('\n')).not.toBeNull();
    expect(Number(stopped?.[1])).toBeLessThanOrEqual(1);
  });
});

describe('structured output', () => {
  const schemas: Record<string, Json> = {
    person: {
      type: 'object',
      properties: {
        name: { type: 'string', maxLength: 12 },
        age: { type: 'integer', minimum: 0, maximum: 120 },
      },
      required: ['name', 'age'],
      additionalProperties: false,
    },
    enumColor: {
      type: 'object',
      properties: { color: { type: 'string', enum: ['red', 'green', 'blue'] } },
      required: ['color'],
      additionalProperties: false,
    },
    nested: {
      type: 'object',
      properties: {
        user: {
          type: 'object',
          properties: {
            id: { type: 'integer', minimum: 1, maximum: 9999 },
            email: { type: 'string', format: 'email' },
          },
          required: ['id', 'email'],
          additionalProperties: false,
        },
      },
      required: ['user'],
      additionalProperties: false,
    },
    tags: {
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', maxLength: 8 }, minItems: 1, maxItems: 4 },
      },
      required: ['tags'],
      additionalProperties: false,
    },
    pattern: {
      type: 'object',
      properties: { code: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{4}$' } },
      required: ['code'],
      additionalProperties: false,
    },
    nullable: {
      type: 'object',
      properties: { ok: { type: 'boolean' }, note: { type: ['string', 'null'], maxLength: 10 } },
      required: ['ok', 'note'],
      additionalProperties: false,
    },
    optional: {
      type: 'object',
      properties: { a: { type: 'integer', minimum: -50, maximum: 50 }, b: { type: 'string', maxLength: 5 } },
      required: ['a'],
      additionalProperties: false,
    },
    anyOf: {
      type: 'object',
      properties: {
        value: {
          anyOf: [
            { type: 'integer', minimum: 0, maximum: 9 },
            { type: 'string', enum: ['none'] },
          ],
        },
      },
      required: ['value'],
      additionalProperties: false,
    },
    orders: {
      type: 'object',
      properties: {
        items: {
          type: 'array',
          maxItems: 3,
          items: {
            type: 'object',
            properties: {
              sku: { type: 'string', pattern: '^[a-z]{2}[0-9]{2}$' },
              qty: { type: 'integer', minimum: 1, maximum: 99 },
            },
            required: ['sku', 'qty'],
            additionalProperties: false,
          },
        },
      },
      required: ['items'],
      additionalProperties: false,
    },
    event: {
      type: 'object',
      properties: {
        kind: { const: 'event' },
        on: { type: 'string', format: 'date' },
        at: { type: 'string', format: 'time' },
      },
      required: ['kind', 'on', 'at'],
      additionalProperties: false,
    },
    price: {
      type: 'object',
      properties: {
        price: { type: 'number', minimum: 0 },
        qty: { type: 'integer', exclusiveMinimum: 0, maximum: 10 },
      },
      required: ['price', 'qty'],
      additionalProperties: false,
    },
    defs: {
      type: 'object',
      $defs: {
        point: {
          type: 'object',
          properties: {
            x: { type: 'integer', minimum: -9, maximum: 9 },
            y: { type: 'integer', minimum: -9, maximum: 9 },
          },
          required: ['x', 'y'],
          additionalProperties: false,
        },
      },
      properties: { from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
      required: ['from', 'to'],
      additionalProperties: false,
    },
  };

  it.each(Object.entries(schemas))(
    'holds the output to the %s schema (checked with ajv)',
    async (name, schema) => {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'Answer in JSON.',
        text: { format: { type: 'json_schema', name, schema, strict: true } },
        max_output_tokens: 300,
        temperature: 1,
      });
      expect(error).toBeNull();
      expect(response?.status).toBe('completed');
      const value = JSON.parse(outputText(response));
      const validate = ajv.compile(schema);
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    },
  );

  it('refuses a schema llama.cpp cannot enforce with a 400 naming it', async () => {
    const { error } = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'Answer in JSON.',
      text: {
        format: {
          type: 'json_schema',
          name: 'x',
          schema: {
            type: 'object',
            properties: { n: { type: 'integer', multipleOf: 3 } },
            required: ['n'],
            additionalProperties: false,
          },
          strict: true,
        },
      },
    });
    expect(error?.status).toBe(400);
    expect(error?.param).toBe('text.format.schema');
    expect(error?.message).toMatch(/multipleOf/);
  });
});

describe('tool calls in the Llama 3 format', () => {
  const tools = [
    {
      type: 'function',
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', maxLength: 12 }, unit: { type: 'string', enum: ['c', 'f'] } },
        required: ['city', 'unit'],
        additionalProperties: false,
      },
      strict: true,
    },
    {
      type: 'function',
      name: 'lookup',
      description: 'Look a record up',
      parameters: {
        type: 'object',
        properties: { id: { type: 'integer', minimum: 1, maximum: 999 } },
        required: ['id'],
        additionalProperties: false,
      },
      strict: true,
    },
  ];
  const byName = new Map(tools.map((t) => [t.name, ajv.compile(t.parameters)]));

  const calls = (r: Json | null) =>
    ((r?.output as Json[]) ?? []).filter((i) => i.type === 'function_call') as {
      name: string;
      arguments: string;
    }[];

  it("'required' gives function calls whose arguments validate", async () => {
    for (const seed of [1, 2, 3]) {
      const { response, error } = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: `What is the weather? (${seed})`,
        tools,
        tool_choice: 'required',
        parallel_tool_calls: false,
        max_output_tokens: 200,
        temperature: 1,
      });
      expect(error).toBeNull();
      const found = calls(response);
      expect(found).toHaveLength(1);
      const [call] = found;
      const validate = byName.get(call?.name ?? '');
      expect(validate, call?.name).toBeTruthy();
      expect(validate?.(JSON.parse(call?.arguments ?? 'null')), JSON.stringify(validate?.errors)).toBe(true);
      expect(outputText(response)).toBe('');
    }
  });

  it('a named tool choice calls that tool', async () => {
    const { response } = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'Find record 5',
      tools,
      tool_choice: { type: 'function', name: 'lookup' },
      max_output_tokens: 200,
      temperature: 1,
    });
    const found = calls(response);
    expect(found.length).toBeGreaterThanOrEqual(1);
    for (const call of found) {
      expect(call.name).toBe('lookup');
      expect(byName.get('lookup')?.(JSON.parse(call.arguments))).toBe(true);
    }
  });

  it('chat completions with tool_choice required answer tool_calls that validate', async () => {
    const r = await app.page.evaluate(sdkChat, {
      model: 'tiny',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: tools.map(({ type, name, description, parameters, strict }) => ({
        type,
        function: { name, description, parameters, strict },
      })),
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_tokens: 200,
      temperature: 1,
    });
    expect(r.error).toBeNull();
    const choice = choiceOf(r);
    expect(choice.finish_reason).toBe('tool_calls');
    const toolCalls = (choice.message as Json).tool_calls as {
      function: { name: string; arguments: string };
    }[];
    expect(toolCalls).toHaveLength(1);
    const validate = byName.get(toolCalls[0]?.function.name ?? '');
    expect(validate?.(JSON.parse(toolCalls[0]?.function.arguments ?? 'null'))).toBe(true);
  });
});

describe('embeddings', () => {
  it('embeds with a GGUF model registered as an embedding model', async () => {
    const { vectors, tokens } = await app.page.evaluate(sdkEmbed, {
      model: 'tiny-embed',
      input: ['hello world', 'hello world', 'goodbye'],
    });
    expect(vectors).toHaveLength(3);
    expect(vectors[0]).toHaveLength(64);
    expect(vectors[0]).toEqual(vectors[1]);
    expect(vectors[0]).not.toEqual(vectors[2]);
    const norm = Math.hypot(...(vectors[0] as number[]));
    expect(norm).toBeCloseTo(1, 3);
    expect(tokens).toBeGreaterThan(3);
  });

  it('refuses to chat with it, and refuses embeddings from a chat model, with a 400 on model', async () => {
    const chat = await app.page.evaluate(sdkCreate, { model: 'tiny-embed', input: 'hi' });
    expect(chat.error).toMatchObject({ status: 400, param: 'model', code: 'unsupported_model' });
    const embed = await app.page.evaluate(embeddingsError, 'tiny');
    expect(embed).toMatchObject({ status: 400, error: { param: 'model', code: 'unsupported_model' } });
  });
});

describe('a model the user picked', () => {
  it('serves a File handed to intab.addModel', async () => {
    const listing = await app.page.evaluate(addPickedFile, { id: 'picked', url: TINY_URL });
    expect(listing).toMatchObject({ id: 'picked', engine: 'wllama', cached: true });
    const { response, error } = await app.page.evaluate(sdkCreate, {
      model: 'picked',
      input: 'Hello there',
      max_output_tokens: 16,
      temperature: 0,
    });
    expect(error).toBeNull();
    expect(usageOf(response).output_tokens).toBe(16);
  });
});

describe('crash recovery', () => {
  it("fails a request whose llama.cpp crashes with llama.cpp's own words, and keeps serving", async () => {
    for (let round = 0; round < 2; round++) {
      const crashed = await app.page.evaluate(sdkCreate, {
        model: 'crashy',
        input: 'hi',
        max_output_tokens: 16,
      });
      expect(crashed.error?.status).toBe(500);
      expect(crashed.error?.code).toBe('model_crashed');
      expect(crashed.error?.message).toMatch(/llama\.cpp crashed/);
      expect(crashed.error?.message).toMatch(/Aborted\(\)/);
      expect(crashed.error?.ms).toBeLessThan(30_000);
      const fine = await app.page.evaluate(sdkCreate, {
        model: 'tiny',
        input: 'still there?',
        max_output_tokens: 16,
      });
      expect(fine.error).toBeNull();
      expect(usageOf(fine.response).output_tokens).toBe(16);
    }
  });

  it('fails a request whose llama.cpp worker hangs within the stall bound, then starts a new instance', async () => {
    // Every llama.cpp worker (wllama's blob: workers) stops answering, as a wedged wasm thread would.
    const llamaWorkers = app.page.workers().filter((w: Worker) => w.url().startsWith('blob:'));
    expect(llamaWorkers.length).toBeGreaterThan(0);
    for (const w of llamaWorkers) {
      void w
        .evaluate(() => {
          const end = Date.now() + 120_000;
          while (Date.now() < end) {
            // busy: the worker's event loop never runs again
          }
        })
        .catch(() => {});
    }
    const hung = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'anyone?',
      max_output_tokens: 16,
    });
    expect(hung.error?.code).toBe('model_unresponsive');
    expect(hung.error?.status).toBe(504);
    expect(hung.error?.ms).toBeLessThan(STALL_MS + 10_000);
    const fresh = await app.page.evaluate(sdkCreate, {
      model: 'tiny',
      input: 'and now?',
      max_output_tokens: 16,
    });
    expect(fresh.error).toBeNull();
    expect(usageOf(fresh.response).output_tokens).toBe(16);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
