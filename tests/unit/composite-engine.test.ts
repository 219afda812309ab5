/**
 * CompositeEngine waits for its members' model lists before routing: a model whose list arrives a
 * moment after start-up is routed, not reported missing; a list that fails or hangs is bounded, and
 * the rest keep working.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/common/api-error';
import { CompositeEngine } from '../../src/engine/composite-engine';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import { LATE_MODEL, LateListEngine } from '../helpers/engines';

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('CompositeEngine model lists', () => {
  it('routes a model whose list was still loading when the call came in', async () => {
    const late = new LateListEngine();
    const engine = new CompositeEngine([new ScriptedEngine(), late]);
    const load = engine.load(LATE_MODEL);
    setTimeout(() => late.arrive(), 20);
    await expect(load).resolves.toBeUndefined();
    expect(engine.models().map((m) => m.id)).toEqual(['scripted', LATE_MODEL]);
    expect(late.initCalls).toBe(1);
  });

  it('answers 400 model_not_found, with the reason, when a list failed to load', async () => {
    const late = new LateListEngine();
    const engine = new CompositeEngine([new ScriptedEngine(), late]);
    late.fail(new Error('Failed to fetch dynamically imported module: /assets/web-llm-x.js'));
    await engine.init();
    expect(engine.models().map((m) => m.id)).toEqual(['scripted']);
    const err = await rejection(engine.load(LATE_MODEL));
    expect([err.status, err.type, err.code, err.param]).toEqual([
      400,
      'invalid_request_error',
      'model_not_found',
      'model',
    ]);
    expect(err.message).toBe(
      "The requested model 'late-model' does not exist. A model list could not be loaded " +
        '(Failed to fetch dynamically imported module: /assets/web-llm-x.js); its models are unavailable.',
    );
    await expect(engine.load('scripted')).resolves.toBeUndefined();
  });

  it('stops waiting for a list that hangs, and routes it once it arrives', async () => {
    const late = new LateListEngine();
    const engine = new CompositeEngine([new ScriptedEngine(), late], { initTimeoutMs: 30 });
    // The list never arrives by itself: init returns at all only through its 30 ms bound, as the
    // reason says (no wall-clock margin).
    await engine.init();
    expect(engine.missingReason()).toBe('A model list was still loading after 30 ms; try again shortly.');
    expect((await rejection(engine.countTokens(LATE_MODEL, []))).code).toBe('model_not_found');
    late.arrive();
    await expect.poll(() => engine.missingReason()).toBeNull();
    await expect(engine.load(LATE_MODEL)).resolves.toBeUndefined();
  });

  it('answers an id no engine lists with a plain model_not_found', async () => {
    const engine = new CompositeEngine([new ScriptedEngine()]);
    const err = await rejection(engine.preflight('gpt-9'));
    expect([err.status, err.code, err.message]).toEqual([
      400,
      'model_not_found',
      "The requested model 'gpt-9' does not exist.",
    ]);
  });
});
