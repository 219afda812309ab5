/**
 * Chat Completions stream chunks turned back into the engine's own chunks, so the Responses core
 * builds the same events whatever server answered: content → text (with logprobs), `reasoning_content`
 * (llama-server, vLLM, DeepSeek) or `reasoning` → reasoning, refusal → refusal, tool-call deltas
 * gathered by index and yielded whole, and the usage chunk → done.
 */
import type { EngineChunk, EngineUsage, FinishReason, TokenLogprob, TopLogprob } from '../types';
import { quote, upstreamError } from './remote-errors';
import type { RemoteServer } from './remote-options';

interface ToolCallDraft {
  name: string;
  arguments: string;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function topLogprob(v: unknown): TopLogprob {
  const o = isObject(v) ? v : {};
  const token = typeof o.token === 'string' ? o.token : '';
  return {
    token,
    logprob: typeof o.logprob === 'number' ? o.logprob : 0,
    bytes: Array.isArray(o.bytes) ? (o.bytes as number[]) : [...new TextEncoder().encode(token)],
  };
}

function logprobsOf(choice: Json): TokenLogprob[] | undefined {
  const content = isObject(choice.logprobs) ? choice.logprobs.content : undefined;
  if (!Array.isArray(content) || content.length === 0) return undefined;
  return content.map((c) => ({
    ...topLogprob(c),
    top_logprobs: Array.isArray((c as Json)?.top_logprobs)
      ? ((c as Json).top_logprobs as unknown[]).map(topLogprob)
      : [],
  }));
}

/**
 * Reads one stream's chunks in order. `push` answers the engine chunks each upstream chunk makes;
 * `finish` the last ones (whole tool calls, then `done`) once the stream ended.
 *
 * @example
 * const map = new ChunkMapper(server, 4);
 * for (const data of events) yield* map.push(JSON.parse(data));
 * yield* map.finish();
 */
export class ChunkMapper {
  private readonly calls: ToolCallDraft[] = [];
  private finishReason: string | null = null;
  private usage: EngineUsage | null = null;
  /** Content chunks seen: the output count when a server sends no usage. */
  private pieces = 0;

  constructor(
    private readonly server: RemoteServer,
    /** `max_tool_calls`: calls past it are dropped. */
    private readonly maxToolCalls: number | null = null,
  ) {}

  /** The engine chunks for one upstream chunk; an error chunk throws (the run fails with its message). */
  push(chunk: unknown): EngineChunk[] {
    if (!isObject(chunk)) throw upstreamError(this.server, `sent a stream chunk that is not an object.`);
    if (chunk.error !== undefined) {
      const e = chunk.error;
      const message = isObject(e) && typeof e.message === 'string' ? e.message : JSON.stringify(e);
      throw upstreamError(this.server, `failed mid-stream: ${quote(message, this.server)}`);
    }
    if (isObject(chunk.usage)) this.usage = usageOf(chunk.usage);
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const out: EngineChunk[] = [];
    for (const choice of choices) {
      if (!isObject(choice) || (typeof choice.index === 'number' && choice.index !== 0)) continue;
      const delta = isObject(choice.delta) ? choice.delta : {};
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning) out.push({ type: 'reasoning', delta: reasoning });
      if (typeof delta.refusal === 'string' && delta.refusal)
        out.push({ type: 'refusal', delta: delta.refusal });
      const logprobs = logprobsOf(choice);
      if (typeof delta.content === 'string' && (delta.content || logprobs)) {
        this.pieces++;
        out.push(
          logprobs
            ? { type: 'text', delta: delta.content, logprobs }
            : { type: 'text', delta: delta.content },
        );
      }
      if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) this.addCall(call);
      if (typeof choice.finish_reason === 'string') this.finishReason = choice.finish_reason;
    }
    return out;
  }

  /** The whole tool calls, then `done`. A stream that never said why it finished failed upstream. */
  finish(inputEstimate: number): EngineChunk[] {
    if (this.finishReason === null)
      throw upstreamError(this.server, 'ended its stream without a finish_reason (it stopped mid-answer).');
    const calls = this.maxToolCalls === null ? this.calls : this.calls.slice(0, this.maxToolCalls);
    const out: EngineChunk[] = calls
      .filter((c) => c?.name)
      .map((c) => ({ type: 'tool_call', name: c.name, arguments: c.arguments || '{}' }));
    const finishReason: FinishReason =
      out.length > 0 ? 'tool_calls' : this.finishReason === 'length' ? 'length' : 'stop';
    const usage = this.usage ?? {
      input_tokens: inputEstimate,
      output_tokens: this.pieces,
      reasoning_tokens: 0,
    };
    out.push({ type: 'done', finishReason, usage });
    return out;
  }

  private addCall(call: unknown): void {
    if (!isObject(call)) return;
    const index = typeof call.index === 'number' ? call.index : this.calls.length;
    if (index < 0 || index > 1024) return;
    const draft = this.calls[index] ?? { name: '', arguments: '' };
    this.calls[index] = draft;
    const fn = isObject(call.function) ? call.function : {};
    if (typeof fn.name === 'string' && fn.name) draft.name = fn.name;
    if (typeof fn.arguments === 'string') draft.arguments += fn.arguments;
  }
}

function usageOf(u: Json): EngineUsage {
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0);
  const out = isObject(u.completion_tokens_details) ? u.completion_tokens_details : {};
  const inp = isObject(u.prompt_tokens_details) ? u.prompt_tokens_details : {};
  const usage: EngineUsage = {
    input_tokens: n(u.prompt_tokens),
    output_tokens: n(u.completion_tokens),
    reasoning_tokens: n(out.reasoning_tokens),
  };
  if (n(inp.cached_tokens) > 0) usage.cached_tokens = n(inp.cached_tokens);
  return usage;
}
