/**
 * Legitimate requests just under 1 MB (issue 15: "no event loop blocked for more than 100 ms by any
 * input under 1 MB"). Where hostile-inputs covers what a client should never send, this covers what
 * a real page does send: a long document, a long history, a big strict schema, many tools, a big
 * image. Each is answered (200, never a 5xx), streamed or not, stored by default, and its work is
 * paced (how long it holds the loop is the bench's `max_event_loop_block_ms`; issue 38).
 */
import { describe, expect, it } from 'vitest';
import { fastestBlock } from '../helpers/event-loop';
import { freshen } from '../helpers/fresh-input';
import { describedFieldsSchema } from '../helpers/grammar-repros';
import { countPaceCalls } from '../helpers/pace-count';
import { BASE, makeRig } from '../helpers/server';

type Rig = ReturnType<typeof makeRig>;
type Large = {
  name: string;
  path: string;
  /** The body, built once per rig (a chain's first response or a conversation is made here). */
  body: (rig: Rig) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** Also sent with `stream: true`, read to the end. */
  streams?: boolean;
  /** The request itself is small (what is large is what it refers to). */
  small?: boolean;
  /** The API's own refusal (a 400 with this code), where it really refuses such a request. */
  refusedAs?: string;
  /** The path, once `body` has run (a conversation's id). */
  at?: (rig: Rig) => string;
};

const KB = 1000;
/**
 * About `bytes` of UTF-8 prose. The scripted model counts whitespace-separated words against its
 * 4,096-token window, so the corpus is Japanese (no spaces between words) with a line break every
 * 100 characters: a long document that fits, as it would fit a real model's window in real tokens.
 */
const doc = (bytes: number) => {
  const sentence =
    '吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。';
  const chars = Math.floor(bytes / 3);
  const flat = sentence.repeat(Math.ceil(chars / sentence.length)).slice(0, chars);
  return flat.replace(/(.{100})/g, '$1\n');
};
/** English prose: the same bytes are many more words. */
const text = (n: number) =>
  'the quick brown fox jumps over a lazy dog while clouds drift slowly by '
    .repeat(Math.ceil(n / 71))
    .slice(0, n);
const create = (extra: Record<string, unknown>) => ({ model: 'scripted', input: 'hi', ...extra });

/** A strict schema of `n` objects with three described fields each, nested two levels. */
const strictSchema = (n: number) => describedFieldsSchema(n, text);
const schemaFormat = (schema: unknown) => ({
  text: { format: { type: 'json_schema', name: 'out', strict: true, schema } },
});

let lastConversation = '';

const corpus: Large[] = [
  {
    name: 'a 900 KB input_text',
    path: '/responses',
    streams: true,
    body: () => create({ input: [{ role: 'user', content: [{ type: 'input_text', text: doc(900 * KB) }] }] }),
  },
  {
    name: 'a 900 KB input_text past the context window',
    path: '/responses',
    refusedAs: 'context_length_exceeded',
    body: () =>
      create({ input: [{ role: 'user', content: [{ type: 'input_text', text: text(900 * KB) }] }] }),
  },
  {
    name: '2,000 short input messages',
    path: '/responses',
    streams: true,
    body: () =>
      create({
        input: Array.from({ length: 2000 }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: doc(450),
        })),
      }),
  },
  {
    name: 'a 450 KB strict json_schema',
    path: '/responses',
    streams: true,
    body: () => create(schemaFormat(strictSchema(1_300))),
  },
  {
    name: 'a 900 KB strict json_schema',
    path: '/responses',
    streams: true,
    body: () => create(schemaFormat(strictSchema(2_000))),
  },
  {
    name: '500 function tools with parameters',
    path: '/responses',
    streams: true,
    body: () =>
      create({
        tools: Array.from({ length: 500 }, (_, i) => ({
          type: 'function',
          name: `tool_${i}`,
          description: doc(800),
          strict: true,
          parameters: {
            type: 'object',
            properties: {
              query: { type: 'string', description: doc(350) },
              limit: { type: 'integer', description: doc(350) },
              mode: { type: 'string', enum: ['fast', 'slow', 'auto'] },
            },
            required: ['query', 'limit', 'mode'],
            additionalProperties: false,
          },
        })),
      }),
  },
  {
    name: '900 KB of instructions',
    path: '/responses',
    streams: true,
    body: () => create({ instructions: doc(900 * KB) }),
  },
  {
    name: 'a previous_response_id whose stored response is 900 KB',
    path: '/responses',
    small: true,
    streams: true,
    body: async (rig) => {
      // 450 KB in, and the scripted model echoes it: 900 KB stored.
      const first = await rig.call('POST', '/responses', create({ input: doc(450 * KB) }));
      expect(first.status).toBe(200);
      return create({ previous_response_id: (await first.json()).id, input: 'and then?' });
    },
  },
  {
    name: 'a 900 KB data:image/png input_image',
    path: '/responses',
    streams: true,
    body: () =>
      create({
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'what is this?' },
              // A PNG signature, then bytes: what a canvas export of a large picture looks like.
              { type: 'input_image', image_url: `data:image/png;base64,iVBORw0KGgo${'A'.repeat(900 * KB)}` },
            ],
          },
        ],
      }),
  },
  {
    name: '20 conversation items of 45 KB each',
    path: '/conversations/{id}/items',
    at: () => `/conversations/${lastConversation}/items`,
    body: async (rig) => {
      const conv = await rig.call('POST', '/conversations', {});
      expect(conv.status).toBe(200);
      lastConversation = (await conv.json()).id;
      return {
        items: Array.from({ length: 20 }, (_, i) => ({
          type: 'message',
          role: i % 2 ? 'assistant' : 'user',
          content: [{ type: i % 2 ? 'output_text' : 'input_text', text: doc(45 * KB) }],
        })),
      };
    },
  },
  {
    name: 'input_tokens of a 900 KB input',
    path: '/responses/input_tokens',
    body: () => ({ model: 'scripted', input: doc(900 * KB) }),
  },
  {
    name: 'chat completions with 900 KB of messages',
    path: '/chat/completions',
    streams: true,
    body: () => ({
      model: 'scripted',
      messages: Array.from({ length: 30 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        content: doc(30 * KB),
      })),
    }),
  },
];

/**
 * The send and the whole answer, SSE included: a stream that blocks while it drains counts too. The
 * body is decoded chunk by chunk, as a page's stream reader does (and in the page, not here): one
 * `res.text()` of a 4 MB stream would be the test's own block, not the server's.
 */
async function roundTrip(rig: Rig, path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await rig.server.fetch(
    new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
  );
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of res.body ?? []) text += decoder.decode(chunk, { stream: true });
  return { status: res.status, text: text + decoder.decode() };
}

describe('legitimate requests under 1 MB: answered, and the event loop stays free', () => {
  for (const c of corpus) {
    for (const stream of c.streams ? [false, true] : [false]) {
      it(`${c.name}${stream ? ' (streamed)' : ''}`, async () => {
        const rig = makeRig();
        const built = await c.body(rig);
        const body = JSON.stringify(stream ? { ...built, stream: true } : built);
        const bytes = new TextEncoder().encode(body).length;
        if (!c.small) expect(bytes).toBeGreaterThan(400 * KB);
        expect(bytes).toBeLessThan(1_000_000);
        const path = c.at?.(rig) ?? c.path;
        // Once to warm the path (first compiles), then once with a fresh schema and pattern (cold: no
        // cache of compiled patterns hides what a new schema costs). How long each held the loop is
        // the bench's figure (`BENCH_ONLY=blocks npm run bench`: max_event_loop_block_ms, in thread
        // time), not an assertion here: a loaded machine inflated it past any fixed bound (issue 38).
        // What holds here, by count: the work went through pace() (each paced step's slicing has its
        // own counted test: body-cap-paced, paced-schema-work, pdf-text, chunker-properties).
        const first = await roundTrip(rig, path, body);
        const status = c.refusedAs ? 400 : 200;
        expect(first.status, first.text.slice(0, 500)).toBe(status);
        if (c.refusedAs) expect(JSON.parse(first.text).error.code).toBe(c.refusedAs);
        const cold = await countPaceCalls(() =>
          fastestBlock(1, () => roundTrip(rig, path, freshen(body, 'cold'))),
        );
        const { value, blockedMs } = cold.value;
        if (process.env.INTAB_BLOCK_REPORT)
          console.log(`BLOCK ${blockedMs.toFixed(1)} ms  ${c.name}${stream ? ' (streamed)' : ''} cold`);
        expect(value.status, value.text.slice(0, 500)).toBe(status);
        if (stream) expect(value.text).toMatch(/\[DONE\]|response\.completed/);
        expect(cold.calls).toBeGreaterThan(0);
      });
    }
  }
});
