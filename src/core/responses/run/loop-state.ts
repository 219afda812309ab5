import type { FileSearchTool } from 'openai/resources/responses/responses';
import type {
  ChatMessage,
  ChatToolCall,
  EngineUsage,
  FinishReason,
  GenerateRequest,
} from '../../../engine/types';
import { type CitationSource, MAX_ENGINE_PASSES, type McpTarget } from '../../hosted';
import type { PreparedCreate } from '../request/prepare-create';
import { PYTHON_NAME } from '../request/tools/code-interpreter-tool';
import { FILE_SEARCH_NAME } from '../request/tools/hosted-tools';
import type { McpPlan } from '../request/tools/mcp-plan';

/** One hosted call a pass made, with what the tool returned, for the next pass to read. */
export interface HostedTurn {
  call: ChatToolCall;
  result: string;
  /** How many excerpts (or other parts) `result` shows, and the result with only the first `keep`. */
  parts: number;
  shorter(keep: number): string;
}

/** How a pass ended: the engine's finish reason, what it wrote, and the hosted calls it made. */
export interface PassOutcome {
  reason: FinishReason;
  usage: EngineUsage;
  /** The assistant text of the pass as the model wrote it (markers and all), and its reasoning. */
  text: string;
  reasoning: string;
  hosted: HostedTurn[];
  /** Client function calls the pass surfaced: they end the response, as without hosted tools. */
  functionCalls: number;
  /** `mcp_approval_request`s the pass emitted: they end the response too, until the user answers. */
  approvals: number;
}

/**
 * What the loop carries from pass to pass within one response: the conversation as the engine sees
 * it (the prepared messages, then each pass's hosted calls and results in the family's native
 * tool-call form), the usage of every pass so far, the hosted calls made, and the citation markers
 * handed out.
 */
export class LoopState {
  readonly sources = new Map<number, CitationSource>();
  hostedCalls = 0;
  passes = 0;
  private messages: ChatMessage[];
  private usage: EngineUsage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cached_tokens: 0 };

  constructor(private readonly prepared: PreparedCreate) {
    this.messages = prepared.generate.messages;
  }

  /** The usage of every pass so far, summed. */
  get total(): EngineUsage {
    return { ...this.usage };
  }

  /** The request's `file_search` tool; only read once {@link isHosted} said a call is one. */
  get fileSearchTool(): FileSearchTool {
    return this.prepared.hosted.fileSearch as FileSearchTool;
  }

  get includeResults(): boolean {
    return this.prepared.hosted.includeResults;
  }

  /** `max_tool_calls`: hosted calls past this many are ignored. */
  get maxHostedCalls(): number {
    return this.prepared.hosted.maxCalls;
  }

  /** The request's `code_interpreter` plan (tool, container, include); only read once {@link isHosted} said a call is one. */
  get codeInterpreter() {
    return this.prepared.hosted.codeInterpreter;
  }

  /** Whether the model may still call a hosted tool in the coming pass. */
  get hostedOpen(): boolean {
    const { fileSearch, codeInterpreter, maxCalls, mcp } = this.prepared.hosted;
    const any = fileSearch !== null || codeInterpreter !== null || (mcp?.targets.size ?? 0) > 0;
    return any && this.hostedCalls < maxCalls && this.passes < MAX_ENGINE_PASSES - 1;
  }

  /** Whether `name` is a hosted tool of this request (so it is run here, not surfaced). */
  isHosted(name: string): boolean {
    if (this.mcpTarget(name)) return true;
    const { fileSearch, codeInterpreter } = this.prepared.hosted;
    return (
      (fileSearch !== null && name === FILE_SEARCH_NAME) || (codeInterpreter !== null && name === PYTHON_NAME)
    );
  }

  /** The request's `mcp` plan; only read when it has one. */
  get mcpPlan(): McpPlan {
    return this.prepared.hosted.mcp as McpPlan;
  }

  /** The MCP server and tool the model calls by `name`, if it is one. */
  mcpTarget(name: string): McpTarget | undefined {
    return this.prepared.hosted.mcp?.targets.get(name);
  }

  /** Tool results the model reads before its first pass (approved MCP calls that just ran). */
  addResults(results: ChatMessage[]): void {
    this.messages = [...this.messages, ...results];
  }

  /** The model's context window, in its tokens. */
  get contextWindow(): number {
    return this.prepared.model.contextWindow;
  }

  /** Output tokens left under `max_output_tokens` (null: no limit). */
  get outputLeft(): number | null {
    const max = this.prepared.generate.maxOutputTokens;
    return max === null ? null : max - this.usage.output_tokens;
  }

  /**
   * The request for the next pass. A forced `tool_choice` holds for the first pass only (a forced
   * call every pass would never end); hosted tools can no longer be called once `max_tool_calls` is
   * spent or at the last pass (the prompt still shows them, as every pass's does: its prefix stays
   * the engine's cache); `max_output_tokens` counts what earlier passes wrote.
   */
  nextRequest(): GenerateRequest {
    const base = this.prepared.generate;
    const first = this.passes === 0;
    let allowed = base.allowedTools ?? null;
    if (!this.hostedOpen)
      allowed = (allowed ?? base.tools.map((t) => t.name)).filter((name) => !this.isHosted(name));
    const callable = allowed ?? base.tools.map((t) => t.name);
    let toolChoice = first ? base.toolChoice : 'auto';
    if (typeof toolChoice === 'object' && !callable.includes((toolChoice as { name: string }).name))
      toolChoice = 'auto';
    if (toolChoice === 'required' && callable.length === 0) toolChoice = 'auto';
    return {
      ...base,
      messages: this.messages,
      toolChoice: base.toolChoice === 'none' ? 'none' : toolChoice,
      allowedTools: allowed,
      maxOutputTokens: this.outputLeft,
    };
  }

  /** Counts a finished pass: its usage, and (when it made hosted calls) its turn for the next pass. */
  record(outcome: PassOutcome): void {
    this.passes += 1;
    const u = this.usage;
    u.input_tokens += outcome.usage.input_tokens;
    u.output_tokens += outcome.usage.output_tokens;
    u.reasoning_tokens += outcome.usage.reasoning_tokens;
    u.cached_tokens = (u.cached_tokens ?? 0) + (outcome.usage.cached_tokens ?? 0);
    this.messages = this.withTurns(outcome);
  }

  /** The conversation the next pass would read after `outcome`'s hosted calls and results. */
  withTurns(outcome: PassOutcome): ChatMessage[] {
    if (outcome.hosted.length === 0) return this.messages;
    const assistant: ChatMessage = {
      role: 'assistant',
      content: outcome.text === '' ? null : outcome.text,
      tool_calls: outcome.hosted.map((h) => h.call),
      ...(outcome.reasoning !== '' && { reasoning: outcome.reasoning }),
    };
    const results: ChatMessage[] = outcome.hosted.map((h) => ({
      role: 'tool',
      tool_call_id: h.call.id,
      name: h.call.function.name,
      content: h.result,
    }));
    return [...this.messages, assistant, ...results];
  }
}
