/**
 * The model list right after start-up, through the openai SDK: routes that name a model wait for a
 * list that is still arriving (web-llm's comes with its lazily imported module), and an unknown
 * model is one answer everywhere: 400 model_not_found on `model`, except the Models API's 404.
 */
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { LATE_MODEL, LateListEngine } from '../helpers/engines';
import { makeRig } from '../helpers/server';
import { validateErrorBody } from '../helpers/spec';

function lateRig(opts: { initTimeoutMs?: number } = {}) {
  const late = new LateListEngine();
  const rig = makeRig({ engine: new CompositeEngine([new ScriptedEngine(), late], opts) });
  return { ...rig, late };
}

describe('routes that name a model, while a model list is still loading', () => {
  it('lists the late models once they arrive, instead of answering without them', async () => {
    const { client, late } = lateRig();
    const listing = (async () => {
      const ids: string[] = [];
      for await (const m of client.models.list()) ids.push(m.id);
      return ids;
    })();
    setTimeout(() => late.arrive(), 30);
    expect(await listing).toEqual(['scripted', LATE_MODEL]);
  });

  it('answers create, input_tokens and compact for a late model sent right after start-up', async () => {
    for (const route of ['create', 'input_tokens', 'compact'] as const) {
      const { client, late } = lateRig();
      const body = { model: LATE_MODEL, input: 'early bird' };
      const answer =
        route === 'create'
          ? client.responses.create(body).then((r) => r.output_text)
          : route === 'input_tokens'
            ? client.responses.inputTokens.count(body).then((r) => r.input_tokens)
            : client.responses.compact(body).then((r) => r.object);
      setTimeout(() => late.arrive(), 20);
      expect(await answer, route).toEqual(
        { create: 'You said: early bird', input_tokens: 2, compact: 'response.compaction' }[route],
      );
    }
  });

  it('still serves scripted, and explains a model list that failed to load', async () => {
    const { client, call, late } = lateRig();
    late.fail(new Error('Failed to fetch dynamically imported module'));
    expect((await client.responses.create({ model: 'scripted', input: 'hi' })).output_text).toBe(
      'You said: hi',
    );
    const res = await call('POST', '/responses', { model: LATE_MODEL, input: 'hi' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toMatch(
      /^The requested model 'late-model' does not exist\. A model list could not be loaded \(Failed to fetch dynamically imported module\)/,
    );
  });

  it('answers without the late models once the bound passes', async () => {
    const { client } = lateRig({ initTimeoutMs: 30 });
    const ids: string[] = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids).toEqual(['scripted']);
  });
});

describe('an unknown model', () => {
  const expected = {
    message: "The requested model 'gpt-nope' does not exist.",
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  };

  for (const [route, path] of [
    ['create', '/responses'],
    ['create (stream)', '/responses'],
    ['input_tokens', '/responses/input_tokens'],
    ['compact', '/responses/compact'],
  ] as const) {
    it(`is a 400 model_not_found on ${route}`, async () => {
      const { call } = makeRig();
      const stream = route.endsWith('(stream)');
      const res = await call('POST', path, { model: 'gpt-nope', input: 'hi', ...(stream ? { stream } : {}) });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(validateErrorBody(body)).toEqual([]);
      expect(body.error).toEqual(expected);
    });
  }

  it('is a 404 model_not_found from the Models API, as the SDK sees it', async () => {
    const { client } = makeRig();
    const err = await client.models.retrieve('gpt-nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).error).toEqual({
      ...expected,
      message: "The model 'gpt-nope' does not exist",
    });
  });
});
