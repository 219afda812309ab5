/**
 * The create surface through the real service worker: streamed tool calls, strict json_schema,
 * reasoning with a summary, logprobs and max_output_tokens, every event and final response checked
 * against the spec.
 */
import type { Response as ApiResponse } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateResponse, validateStreamEvent } from '../helpers/spec';
import { postStream } from './api.page';
import { type AppSession, openApp } from './harness';

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
});
afterAll(() => app?.close());

type Event = Record<string, unknown> & { type: string; sequence_number: number };

/** Streams `body` from inside the page; checks framing, numbering and the spec for every event. */
async function streamInPage(body: Record<string, unknown>): Promise<{ events: Event[]; final: ApiResponse }> {
  const res = await app.page.evaluate(postStream, { model: 'scripted', ...body });
  expect(res.status).toBe(200);
  expect(res.contentType).toContain('text/event-stream');
  const events = res.frames.map((f) => f.data as Event);
  for (const [i, frame] of res.frames.entries()) {
    expect(validateStreamEvent(frame.data), `event ${i} (${frame.event})`).toEqual([]);
    expect(frame.event).toBe(events[i]?.type);
  }
  expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
  const final = events.at(-1)?.response as ApiResponse;
  expect(validateResponse(final)).toEqual([]);
  return { events, final };
}

const weather = {
  type: 'function',
  name: 'get_weather',
  strict: true,
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

describe('the create surface through the service worker', () => {
  it('streams a tool call, then the answer to its output', async () => {
    const { events, final } = await streamInPage({ input: 'weather?', tools: [weather] });
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const call = final.output[0] as { type: string; call_id: string; arguments: string };
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', arguments: '{"city":"city"}' });
    const next = await streamInPage({
      previous_response_id: final.id,
      tools: [weather],
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(next.final.status).toBe('completed');
    const message = next.final.output[0] as { content: { text: string }[] };
    expect(message.content[0]?.text).toBe('Tool get_weather returned: sunny');
  });

  it('answers a strict json_schema with JSON that matches it', async () => {
    const schema = {
      type: 'object',
      properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' }, minItems: 1 } },
      required: ['n', 'tags'],
      additionalProperties: false,
    };
    const { final } = await streamInPage({
      input: 'data',
      text: { format: { type: 'json_schema', name: 'out', schema, strict: true } },
    });
    expect(final.status).toBe('completed');
    const message = final.output[0] as { content: { text: string }[] };
    expect(JSON.parse(message.content[0]?.text ?? '')).toEqual({ n: 1, tags: ['tags'] });
  });

  it('reasons with a summary, counting reasoning tokens', async () => {
    const { events, final } = await streamInPage({
      input: 'why',
      reasoning: { effort: 'medium', summary: 'detailed' },
      include: ['reasoning.encrypted_content'],
    });
    const types = events.map((e) => e.type);
    const at = (t: string) => types.indexOf(t);
    expect(at('response.reasoning_text.done')).toBeLessThan(at('response.reasoning_summary_part.added'));
    expect(at('response.reasoning_summary_part.done')).toBeLessThan(at('response.output_item.done'));
    const reasoning = final.output[0] as { summary: { text: string }[]; encrypted_content: string };
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text: 'Thinking about: why' }]);
    expect(reasoning.encrypted_content).toMatch(/^intab\.rs\.v1\./);
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(3);
  });

  it('puts logprobs on the deltas when include asks', async () => {
    const { events } = await streamInPage({
      input: 'a b',
      include: ['message.output_text.logprobs'],
      top_logprobs: 1,
    });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((d) => (d.logprobs as { token: string }[])[0]?.token)).toEqual([
      'You',
      ' said:',
      ' a',
      ' b',
    ]);
  });

  it('stops at max_output_tokens with response.incomplete', async () => {
    const { events, final } = await streamInPage({ input: '!words 30', max_output_tokens: 16 });
    expect(events.at(-1)?.type).toBe('response.incomplete');
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(events.filter((e) => e.type === 'response.output_text.delta')).toHaveLength(16);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
