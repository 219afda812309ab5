/**
 * Issue 45 from the OpenAI Agents SDK, unchanged: its `shellTool` and `applyPatchTool` run an
 * agent against intab's `scripted` model with executors the app supplies (here an in-memory shell
 * and an in-memory editor that applies the V4A diff with the SDK's own `applyDiff`). The SDK reads
 * the typed call items, runs them, and sends their outputs back as input items.
 */
import {
  Agent,
  applyDiff,
  applyPatchTool,
  type Editor,
  run,
  type Shell,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
  shellTool,
} from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { BASE, makeRig } from '../helpers/server';

/** The bodies the SDK POSTed in the current test. */
const bodies: Record<string, unknown>[] = [];

/**
 * Points the SDK at one rig for the file (its model provider keeps the first default client it
 * is given), and forgets the bodies of the test before.
 */
function useRig(): Record<string, unknown>[] {
  bodies.length = 0;
  if (rigged) return bodies;
  rigged = true;
  const { server } = makeRig();
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const req = new Request(input, init);
    if (req.method === 'POST') bodies.push(await req.clone().json());
    return server.fetch(req);
  };
  setDefaultOpenAIClient(new OpenAI({ apiKey: 'intab-test', baseURL: BASE, maxRetries: 0, fetch }));
  setOpenAIAPI('responses');
  setTracingDisabled(true);
  return bodies;
}

let rigged = false;

describe('OpenAI Agents SDK client tools', () => {
  it('shellTool: the agent runs the commands intab asked for and reads their output back', async () => {
    const bodies = useRig();
    const ran: string[][] = [];
    const shell: Shell = {
      async run(action) {
        ran.push(action.commands);
        return {
          output: action.commands.map((c) => ({
            stdout: `ran ${c}`,
            stderr: '',
            outcome: { type: 'exit' as const, exitCode: 0 },
          })),
        };
      },
    };
    const agent = new Agent({ name: 'ops', model: 'scripted', tools: [shellTool({ shell })] });
    const result = await run(agent, '!shell echo hi');
    expect(ran).toEqual([['echo hi']]);
    expect(bodies[0]).toMatchObject({ tools: [{ type: 'shell', environment: { type: 'local' } }] });
    expect(result.finalOutput).toBe('Tool shell returned: command 1: exit code 0\nstdout:\nran echo hi');
    expect(bodies).toHaveLength(2);
  });

  it('applyPatchTool: the agent creates the file from the V4A diff intab returned', async () => {
    const bodies = useRig();
    const files = new Map<string, string>();
    const editor: Editor = {
      async createFile(op) {
        files.set(op.path, applyDiff('', op.diff, 'create'));
        return { status: 'completed', output: `Created ${op.path}` };
      },
      async updateFile(op) {
        files.set(op.path, applyDiff(files.get(op.path) ?? '', op.diff));
        return { status: 'completed', output: `Updated ${op.path}` };
      },
      async deleteFile(op) {
        files.delete(op.path);
        return { status: 'completed' };
      },
    };
    const agent = new Agent({ name: 'dev', model: 'scripted', tools: [applyPatchTool({ editor })] });
    const result = await run(agent, '!apply_patch create_file hello.txt\n+hello\n+world');
    expect(files.get('hello.txt')).toBe('hello\nworld');
    expect(bodies[0]).toMatchObject({ tools: [{ type: 'apply_patch' }] });
    expect(result.finalOutput).toBe('Tool apply_patch returned: completed: Created hello.txt');
  });
});
