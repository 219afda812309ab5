/**
 * Remote servers reach the engine worker in a message, never in its name: the name carries only
 * how many to wait for, so the key is not visible to whatever lists workers.
 */
import { describe, expect, it } from 'vitest';
import { engineWorkerName, workerOptions } from '../../../src/worker/worker-options';

describe('remote servers and the engine worker name', () => {
  it('carries only a count, which the worker reads back', () => {
    const name = engineWorkerName({ remote: { servers: 2 } });
    expect(name).toBe('intab-engine {"remote":{"servers":2}}');
    expect(workerOptions(name).remote).toEqual({ servers: 2 });
  });

  it('reads no flag from a malformed or absent one', () => {
    expect(workerOptions('intab-engine').remote).toBeUndefined();
    expect(workerOptions('intab-engine {"remote":{"servers":"x"}}').remote).toBeUndefined();
    expect(workerOptions('intab-engine {"remote":{"servers":0}}').remote).toBeUndefined();
  });
});
