/**
 * The README's hosted-tools recipe (examples/sdk-app/src/hosted-tools.ts, which CI also runs in
 * Chromium), in Node against intab's core: the Agents SDK's fileSearchTool over a lexical store (no
 * embedding model configured), codeInterpreterTool (real Pyodide in-process), and hostedMcpTool whose call stops the run for approval, is approved
 * by the app, and runs. `scripted` quotes each tool's output without intab's model-facing frame.
 */
import { setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedToolsAgent, runWithApproval } from '../../examples/sdk-app/src/hosted-tools';
import { TestFiles } from '../helpers/file-reader';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { InProcessPython } from '../helpers/python-runner-double';
import { BASE, makeRig } from '../helpers/server';

let srv: RunningMcpServer;
let vectorStoreId: string;

beforeAll(async () => {
  srv = await startMcpServer();
  const files = new TestFiles({ 'file-solar': ['solar.txt', 'Solar panels turn sunlight into power.'] });
  const python = new InProcessPython();
  await python.run('warm', 'pass', []);
  const { server, client } = makeRig({ readFile: files.reader, python });
  setDefaultOpenAIClient(
    new OpenAI({
      apiKey: 'x',
      baseURL: BASE,
      maxRetries: 0,
      fetch: (i, init) => server.fetch(new Request(i, init)),
    }),
  );
  setOpenAIAPI('responses');
  setTracingDisabled(true);
  const vs = await client.vectorStores.create({});
  await client.vectorStores.files.createAndPoll(vs.id, { file_id: 'file-solar' }, { pollIntervalMs: 5 });
  vectorStoreId = vs.id;
}, 120_000);
afterAll(() => srv?.close());

describe('the Agents SDK’s hosted tools against intab', () => {
  it('fileSearchTool answers from a store built with no embedding model', async () => {
    const agent = hostedToolsAgent(vectorStoreId, srv.url);
    expect(await runWithApproval(agent, '!file_search solar panels')).toBe(
      'Tool file_search returned: solar.txt\nSolar panels turn sunlight into power.',
    );
  });

  it('codeInterpreterTool runs Python inside intab', async () => {
    const agent = hostedToolsAgent(vectorStoreId, srv.url);
    expect(await runWithApproval(agent, '!python print(6 * 7)')).toMatch(/^Tool python returned: 42\s*$/);
  }, 60_000);

  it('hostedMcpTool stops for approval, and the approved call runs', async () => {
    const agent = hostedToolsAgent(vectorStoreId, srv.url);
    expect(await runWithApproval(agent, '!mcp tools echo {"text":"hi"}')).toBe(
      'Tool echo returned: echo: hi',
    );
    expect(srv.counts.call).toBe(1);
  });
});
