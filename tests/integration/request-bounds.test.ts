/**
 * Issue 27, item 4: bounded loops in the core. `truncation: "auto"` is linear (each message counted
 * once) and stops when the client goes away; `max_tool_calls` has an upper bound; a metadata key
 * named `__proto__`, `constructor` or `prototype` is validated like any other, on every route that
 * takes metadata. After each refused request nothing is stored and a normal request is answered.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TOOL_CALLS } from '../../src/core/responses/request/create-schema';
import { fitContext } from '../../src/core/responses/request/fit-context';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { ChatMessage, Engine, FunctionToolSpec, ModelInfo } from '../../src/engine/types';
import { makeRig } from '../helpers/server';

type Rig = ReturnType<typeof makeRig>;

/**
 * The scripted engine, counting its `countTokens` calls; with `holdAt`, that call waits until
 * `release()` (a gate the test opens, so nothing depends on timing).
 */
class CountingEngine extends ScriptedEngine {
  calls = 0;
  held: Promise<void> | null = null;
  release: () => void = () => {};
  private readonly reached: Promise<void>;
  private reach: () => void = () => {};
  constructor(private readonly holdAt = 0) {
    super();
    this.reached = new Promise((r) => (this.reach = r));
  }
  /** Resolves once the held call has begun. */
  atGate(): Promise<void> {
    return this.reached;
  }
  override async countTokens(id: string, messages: ChatMessage[], tools?: FunctionToolSpec[]) {
    this.calls++;
    if (this.calls === this.holdAt) {
      this.reach();
      await new Promise<void>((r) => (this.release = r));
    }
    return super.countTokens(id, messages, tools);
  }
}

const manyMessages = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i} a b` }));

/** A normal request is answered, and the refusals before it stored nothing. */
async function stillServesAndStoredNothing(rig: Rig, storedBefore = 0): Promise<void> {
  const recent = await rig.store.listRecent(100);
  expect(recent.responses).toHaveLength(storedBefore);
  expect(recent.conversations).toHaveLength(0);
  expect(await rig.store.findItem('msg_refused')).toBeUndefined();
  const res = await rig.call('POST', '/responses', { model: 'scripted', input: 'still here', store: false });
  expect(res.status).toBe(200);
  expect((await res.json()).output[0].content[0].text).toBe('You said: still here');
}

describe('truncation: auto', () => {
  it('22k messages (900 KB) are truncated with a few whole-prompt counts, none per message', async () => {
    // Before issue 27: every dropped message recounted the whole list, O(n²): 22k took about 180 s.
    // Before issue 38: one count per message (n + O(log n)). Now the messages are sized locally and
    // only drop points are counted: at most about 3·log2(n) counts (issue 38: counted, not timed).
    const engine = new CountingEngine();
    const rig = makeRig({ engine });
    const n = 22_000;
    const body = JSON.stringify({ model: 'scripted', truncation: 'auto', input: manyMessages(n) });
    expect(body.length).toBeLessThan(1_000_000);
    const res = await rig.call('POST', '/responses', body);
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out.status).toBe('completed');
    // The newest messages survive (the scripted model echoes the last user message, the one before
    // the final assistant turn); the counts stay logarithmic (+ the run's own count).
    expect(out.output[0].content[0].text).toBe(`You said: m${n - 2} a b`);
    expect(engine.calls).toBeLessThan(3 * Math.log2(n) + 8);
  });

  it('stops counting when the client goes away (a 499 nobody reads)', async () => {
    // The third count (a drop point) waits at a gate; the client aborts meanwhile, then the gate opens.
    const engine = new CountingEngine(3);
    const rig = makeRig({ engine });
    const abort = new AbortController();
    const body = JSON.stringify({ model: 'scripted', truncation: 'auto', input: manyMessages(5000) });
    const pending = rig.server.fetch(
      new Request('http://intab.test/v1/responses', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        signal: abort.signal,
      }),
    );
    await engine.atGate();
    abort.abort();
    engine.release();
    const res = await pending;
    expect(res.status).toBe(499);
    // No count after the held one.
    const calls = engine.calls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(engine.calls).toBe(calls);
    expect(calls).toBe(3);
    await stillServesAndStoredNothing(rig);
  });

  it('an input that cannot fit even truncated is a 400 that stores nothing', async () => {
    const rig = makeRig();
    const res = await rig.call('POST', '/responses', {
      model: 'scripted',
      truncation: 'auto',
      input: [
        { role: 'user', content: 'old' },
        { role: 'user', content: 'word '.repeat(5000) },
      ],
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ param: 'input', code: 'context_length_exceeded' });
    await stillServesAndStoredNothing(rig);
  });

  // Engines whose counts do not add up (a template that joins messages, a per-list header): the
  // running sum is only a guess, and the result must still be the fewest drops that fit.
  it('drops exactly the fewest oldest messages that fit, whatever the engine counts (100 runs)', async () => {
    const role = fc.constantFrom('system', 'user', 'assistant', 'tool');
    const message = fc.record({ role, size: fc.nat(60) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(message, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 20, max: 800 }),
        fc.integer({ min: -3, max: 3 }),
        async (spec, budget, joint) => {
          const messages = spec.map(({ role, size }) => toMessage(role, size));
          let calls = 0;
          // Each message costs its size, plus `joint` per pair of neighbours with the same role.
          const count = (list: ChatMessage[]) => {
            calls++;
            let n = 0;
            for (const [i, m] of list.entries()) {
              n += (m.content as string).length;
              if (i > 0 && list[i - 1]?.role === m.role) n += joint;
            }
            return Math.max(n, 0);
          };
          const engine = { countTokens: async (_id: string, list: ChatMessage[]) => count(list) } as Engine;
          const model = { id: 'm', contextWindow: budget } as ModelInfo;
          const fits = await fitContext(messages, { tools: [], model, truncation: 'auto', engine }).then(
            (kept) => kept,
            () => null,
          );
          const counted = calls;
          // The reference: the old algorithm, one message (and its tool results) at a time.
          const expected = referenceFit(messages, budget, count);
          expect(fits).toEqual(expected);
          // Whole-prompt counts at drop points only (issue 38): none per message.
          expect(counted).toBeLessThanOrEqual(3 * Math.log2(messages.length + 1) + 4);
        },
      ),
      { numRuns: 100, seed: 27 },
    );
  });
});

function toMessage(role: string, size: number): ChatMessage {
  const content = 'x'.repeat(size);
  if (role === 'tool') return { role: 'tool', content, tool_call_id: 'c' } as ChatMessage;
  return { role, content } as ChatMessage;
}

/** The old loop (before issue 27), kept only as the reference: the oldest group at a time, recounting. */
function referenceFit(
  messages: ChatMessage[],
  budget: number,
  count: (list: ChatMessage[]) => number,
): ChatMessage[] | null {
  if (count(messages) <= budget) return messages;
  const kept = [...messages];
  for (;;) {
    const i = kept.findIndex((m) => m.role !== 'system');
    if (i < 0 || i === kept.length - 1) return null;
    kept.splice(i, 1);
    while (kept[i]?.role === 'tool') kept.splice(i, 1);
    if (count(kept) <= budget) return kept;
  }
}

describe('max_tool_calls', () => {
  it(`is at most ${MAX_TOOL_CALLS}: past it a 400 on max_tool_calls`, async () => {
    const rig = makeRig();
    for (const n of [MAX_TOOL_CALLS + 1, 1e9, 1e300]) {
      const res = await rig.call('POST', '/responses', { model: 'scripted', input: 'x', max_tool_calls: n });
      expect(res.status).toBe(400);
      const { error } = await res.json();
      expect(error).toMatchObject({ type: 'invalid_request_error', param: 'max_tool_calls' });
      expect(error.code).toBe('integer_above_max_value');
      await stillServesAndStoredNothing(rig);
    }
    const ok = await rig.call('POST', '/responses', {
      model: 'scripted',
      input: 'x',
      max_tool_calls: MAX_TOOL_CALLS,
      store: false,
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).max_tool_calls).toBe(MAX_TOOL_CALLS);
  });
});

describe('metadata keys that name Object.prototype members', () => {
  const keys = ['__proto__', 'constructor', 'prototype'];
  const badValues: [string, string][] = [
    ['an object', '{"a":1}'],
    ['a number', '5'],
    ['an array', '["x"]'],
    ['null', 'null'],
    ['a string over 512', JSON.stringify('x'.repeat(513))],
  ];
  // Raw JSON text: `JSON.parse` makes `__proto__` an own key, as any client's body does.
  const routes: [string, (meta: string) => [string, string]][] = [
    [
      '/responses',
      (m) => [
        '/responses',
        `{"model":"scripted","input":[{"type":"message","id":"msg_refused","role":"user","content":"x"}],"metadata":${m}}`,
      ],
    ],
    [
      '/chat/completions',
      (m) => [
        '/chat/completions',
        `{"model":"scripted","store":true,"messages":[{"role":"user","content":"x"}],"metadata":${m}}`,
      ],
    ],
    [
      '/conversations',
      (m) => [
        '/conversations',
        `{"items":[{"type":"message","id":"msg_refused","role":"user","content":"x"}],"metadata":${m}}`,
      ],
    ],
  ];

  for (const [route, build] of routes) {
    for (const key of keys) {
      it.each(badValues)(`${route}: "${key}" with %s is a 400 on metadata.${key}`, async (_, value) => {
        const rig = makeRig();
        const [path, body] = build(`{${JSON.stringify(key)}:${value}}`);
        const res = await rig.call('POST', path, body);
        expect(res.status).toBe(400);
        const { error } = await res.json();
        expect(error).toMatchObject({ type: 'invalid_request_error', param: `metadata.${key}` });
        await stillServesAndStoredNothing(rig);
      });

      it(`${route}: "${key}" with a string is kept as a plain key`, async () => {
        const rig = makeRig();
        const [path, body] = build(`{${JSON.stringify(key)}:"v"}`);
        const res = await rig.call('POST', path, body);
        expect(res.status).toBe(200);
        const out = await res.json();
        if (route !== '/chat/completions') {
          expect(Object.hasOwn(out.metadata, key)).toBe(true);
          expect(out.metadata[key]).toBe('v');
        }
      });
    }

    it(`${route}: 16 pairs and a "__proto__" are 17, too many`, async () => {
      const rig = makeRig();
      const pairs = Array.from({ length: 16 }, (_, i) => `"k${i}":"v"`).join(',');
      const [path, body] = build(`{${pairs},"__proto__":"v"}`);
      const res = await rig.call('POST', path, body);
      expect(res.status).toBe(400);
      expect((await res.json()).error.param).toBe('metadata');
      await stillServesAndStoredNothing(rig);
    });
  }

  it('POST /conversations/{id}: the same rules on update, and a refusal changes nothing', async () => {
    const rig = makeRig();
    const created = await (await rig.call('POST', '/conversations', { metadata: { a: 'b' } })).json();
    for (const key of keys) {
      const res = await rig.call('POST', `/conversations/${created.id}`, `{"metadata":{"${key}":{"x":1}}}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error.param).toBe(`metadata.${key}`);
    }
    expect((await rig.store.getConversation(created.id))?.metadata).toEqual({ a: 'b' });
    const ok = await rig.call('POST', `/conversations/${created.id}`, '{"metadata":{"__proto__":"v"}}');
    expect(ok.status).toBe(200);
    expect(Object.hasOwn((await ok.json()).metadata, '__proto__')).toBe(true);
  });
});
