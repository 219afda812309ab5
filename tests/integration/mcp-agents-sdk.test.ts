/**
 * The OpenAI Agents SDK (0.20), unchanged, running `hostedMcpTool` against intab and a real MCP
 * server: its approval runner answers the `mcp_approval_request` with an `mcp_approval_response`,
 * and intab runs (or skips) the call in the next response.
 */
import {
  Agent,
  hostedMcpTool,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTracingDisabled,
} from '@openai/agents';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { BASE, makeRig } from '../helpers/server';

let srv: RunningMcpServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

// The SDK keeps the model it built on the first default client: one rig for the file, its bodies cleared per test.
const bodies: Record<string, unknown>[] = [];
let ready = false;

function useRig() {
  bodies.length = 0;
  if (ready) return bodies;
  ready = true;
  const { server } = makeRig();
  const client = new OpenAI({
    apiKey: 'intab-test',
    baseURL: BASE,
    maxRetries: 0,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body));
      return server.fetch(new Request(input, init));
    },
  });
  setDefaultOpenAIClient(client);
  setOpenAIAPI('responses');
  setTracingDisabled(true);
  return bodies;
}

describe('Agents SDK hostedMcpTool', () => {
  for (const approve of [true, false])
    it(`requireApproval 'always' with onApproval ${approve ? 'approving' : 'declining'}`, async () => {
      srv = await startMcpServer();
      const bodies = useRig();
      const asked: string[] = [];
      const agent = new Agent({
        name: 'mcp',
        instructions: 'Use the tools.',
        model: 'scripted',
        tools: [
          hostedMcpTool({
            serverLabel: 'test',
            serverUrl: srv.url,
            requireApproval: 'always',
            onApproval: async (_ctx, item) => {
              asked.push(item.name ?? '');
              return { approve, reason: approve ? undefined : 'not today' };
            },
          }),
        ],
      });
      const result = await run(agent, '!mcp test echo {"text":"agents"}');
      expect(asked).toEqual(['echo']);
      const answers = bodies.flatMap((b) =>
        ((b.input as { type?: string }[] | undefined) ?? []).filter(
          (i) => i.type === 'mcp_approval_response',
        ),
      );
      expect(answers).toHaveLength(1);
      expect(answers[0]).toMatchObject({ approve });
      if (approve) {
        expect(result.finalOutput).toContain('echo: agents');
        expect(srv.counts.call).toBe(1);
      } else {
        expect(result.finalOutput).toContain('The user declined this call to echo');
        expect(srv.counts.call).toBe(0);
      }
      expect(srv.counts.list).toBe(1);
    });
});
