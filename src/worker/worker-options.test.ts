import { describe, expect, it } from 'vitest';
import { engineWorkerName, workerOptions } from './worker-options';

describe('engine worker options carried in its name', () => {
  it('round-trips store limits', () => {
    const name = engineWorkerName({ ttlMs: 60_000, maxResponses: 50 });
    expect(workerOptions(name)).toEqual({
      store: { ttlMs: 60_000, maxResponses: 50, maxConversations: undefined },
    });
  });
  it('keeps the plain name without options, and falls back to defaults on anything malformed', () => {
    expect(engineWorkerName({})).toBe('intab-engine');
    expect(workerOptions('intab-engine')).toEqual({ store: {} });
    expect(workerOptions('intab-engine {not json')).toEqual({ store: {} });
    expect(workerOptions('intab-engine {"store":{"ttlMs":-5,"maxResponses":"9"}}').store).toEqual({
      ttlMs: undefined,
      maxResponses: undefined,
      maxConversations: undefined,
    });
  });
});
