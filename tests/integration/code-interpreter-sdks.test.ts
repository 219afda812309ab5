/**
 * `code_interpreter` from the OpenAI Agents SDK, unchanged: `codeInterpreterTool()` run against the
 * core with the scripted model and real Pyodide in-process (tests/helpers/python-runner-double.ts).
 */
import {
  Agent,
  codeInterpreterTool,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { InProcessPython } from '../helpers/python-runner-double';
import { BASE, makeRig } from '../helpers/server';

const runner = new InProcessPython();

beforeAll(async () => {
  await runner.run('warm', 'pass', []);
}, 120_000);

describe('OpenAI Agents SDK codeInterpreterTool', () => {
  it('runs an agent whose Python runs inside intab, in one request', async () => {
    const { server } = makeRig({ python: runner });
    const bodies: Record<string, unknown>[] = [];
    const fetch = async (input: string | URL | Request, init?: RequestInit) => {
      const req = new Request(input, init);
      if (req.method === 'POST') bodies.push(await req.clone().json());
      return server.fetch(req);
    };
    setDefaultOpenAIClient(new OpenAI({ apiKey: 'intab-test', baseURL: BASE, maxRetries: 0, fetch }));
    setOpenAIAPI('responses');
    setTracingDisabled(true);
    const agent = new Agent({
      name: 'analyst',
      instructions: 'Compute with Python.',
      model: 'scripted',
      tools: [codeInterpreterTool()],
    });
    const result = await run(agent, '!python print(sum(range(10)))');
    expect(bodies[0]).toMatchObject({ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] });
    expect(result.finalOutput).toMatch(/returned: 45/);
    const call = result.newItems.find((i) => i.type === 'tool_call_item');
    expect(call?.rawItem).toMatchObject({
      type: 'hosted_tool_call',
      name: 'code_interpreter_call',
      status: 'completed',
    });
    expect(bodies).toHaveLength(1);
  });
});
