/**
 * When `code_interpreter`'s sandbox starts: never with the server (the page's load), at the start
 * of a response whose tools include `code_interpreter` (before the model has written any code, so
 * Pyodide's load overlaps the model's work), and that sandbox is the one the first call runs in.
 * Through the official `openai` SDK over the core, with the real SandboxHost over worker doubles.
 */
import { describe, expect, it } from 'vitest';
import { SandboxHost } from '../../src/sandbox';
import { SandboxWorkerDouble } from '../helpers/sandbox-double';
import { makeRig } from '../helpers/server';

const TOOL = { type: 'code_interpreter' as const, container: { type: 'auto' as const } };

function rigWithHost() {
  const workers: SandboxWorkerDouble[] = [];
  const host = new SandboxHost({
    startWorker: () => {
      const w = new SandboxWorkerDouble(() => ({ stdout: 'ok\n' }));
      workers.push(w);
      return w;
    },
  });
  return { ...makeRig({ python: host }), host, workers };
}

describe('code_interpreter sandbox prewarm', () => {
  it('starts no sandbox with the server, nor for a response without code_interpreter', async () => {
    const { client, workers } = rigWithHost();
    expect(workers).toHaveLength(0);
    await client.responses.create({ model: 'scripted', input: 'hello' });
    expect(workers).toHaveLength(0);
  });

  it('starts one as a response with code_interpreter begins, even if the model never calls it (and makes no container)', async () => {
    const { client, workers, host } = rigWithHost();
    // The scripted model calls the first tool it is given: here a client function, so Python never runs.
    const fn = {
      type: 'function' as const,
      name: 'f',
      strict: false,
      parameters: { type: 'object', properties: {} },
    };
    const r = await client.responses.create({ model: 'scripted', input: 'hello', tools: [fn, TOOL] });
    expect(r.output.map((o) => o.type)).toEqual(['function_call']);
    expect(workers).toHaveLength(1);
    expect(workers[0]?.inits).toHaveLength(1);
    expect(workers[0]?.calls).toHaveLength(0);
    expect(host.alive).toBe(1);
    expect((await client.containers.list()).data).toHaveLength(0);
  });

  it('runs the first call in the prewarmed sandbox, and the chain’s next response starts no other', async () => {
    const { client, workers } = rigWithHost();
    const first = await client.responses.create({
      model: 'scripted',
      input: '!python print(1)',
      tools: [TOOL],
    });
    expect(workers).toHaveLength(1);
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['print(1)']);
    await client.responses.create({
      model: 'scripted',
      input: '!python print(2)',
      tools: [TOOL],
      previous_response_id: first.id,
    });
    expect(workers).toHaveLength(1);
    expect(workers[0]?.calls.map((c) => c.code)).toEqual(['print(1)', 'print(2)']);
  });
});
