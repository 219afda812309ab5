/**
 * The `mcp` tool on the real wllama engine's code (its Llama 3 tool format, its GBNF request
 * grammar, its call parser) over a fake llama.cpp that writes, pass by pass, what a model would,
 * against a real MCP server: the server's own input schema (draft 2020-12, `$schema` and all)
 * becomes the grammar of a forced call, the call runs as an `mcp_call`, and the next pass reads its
 * output in the family's tool-result turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WllamaEngine } from '../../src/engine/wllama';
import { gbnfMatches } from '../helpers/gbnf-match';
import { type RunningMcpServer, startMcpServer } from '../helpers/mcp-server';
import { makeRig } from '../helpers/server';
import { tinyGguf } from '../helpers/tiny-gguf';
import { PassFake } from '../helpers/wllama-fakes';

const CALL = '{"name": "echo", "parameters": {"text": "hi"}}';

let srv: RunningMcpServer | null = null;
afterEach(async () => {
  await srv?.close();
  srv = null;
});

describe('mcp on the wllama engine', () => {
  it('holds the forced call to the server schema by grammar, runs it, and shows the output next pass', async () => {
    srv = await startMcpServer();
    const fake = new PassFake([CALL, 'It said hi.']);
    const engine = new WllamaEngine({
      models: [{ id: 'm', files: [tinyGguf()] }],
      hasWebGpuF16: async () => false,
      createWllama: () => fake,
    });
    const { client } = makeRig({ engine });
    const r = await client.responses.create({
      model: 'm',
      input: 'Echo hi.',
      tools: [{ type: 'mcp', server_label: 'test', server_url: srv.url, require_approval: 'never' }],
      tool_choice: { type: 'mcp', server_label: 'test', name: 'echo' },
      temperature: 0,
    });
    expect(r.error).toBeNull();
    expect(r.output.map((o) => o.type)).toEqual(['mcp_list_tools', 'mcp_call', 'message']);
    expect(r.output[1]).toMatchObject({ name: 'echo', arguments: '{"text":"hi"}', output: 'echo: hi' });
    const first = fake.calls[0]?.params as { grammar?: string };
    expect(gbnfMatches(first.grammar as string, CALL)).toBe(true);
    expect(gbnfMatches(first.grammar as string, '{"name": "echo", "parameters": {"text": 1}}')).toBe(false);
    const second = fake.calls[1]?.params as { messages: { content: string }[] };
    expect(second.messages.at(-1)?.content).toContain('echo: hi');
  });
});
