import { Agent, codeInterpreterTool, fileSearchTool, hostedMcpTool, run } from '@openai/agents';

// Hosted tools run inside intab (file_search over the tab's vector stores, Python in a sandbox, a
// remote MCP server called from the tab); the agent's model only asks for them.
export function hostedToolsAgent(vectorStoreId: string, mcpServerUrl: string): Agent {
  return new Agent({
    name: 'researcher',
    instructions: 'Search the files, compute with Python, and use the MCP server.',
    model: 'scripted',
    tools: [
      fileSearchTool([vectorStoreId]),
      codeInterpreterTool(),
      hostedMcpTool({ serverLabel: 'tools', serverUrl: mcpServerUrl, requireApproval: 'always' }),
    ],
  });
}

/** Runs the agent; an MCP call waits for approval: the run stops on it, the app approves it, the run goes on. */
export async function runWithApproval(agent: Agent, input: string): Promise<string> {
  let result = await run(agent, input);
  while (result.interruptions.length > 0) {
    for (const interruption of result.interruptions) result.state.approve(interruption);
    result = await run(agent, result.state);
  }
  return String(result.finalOutput);
}
