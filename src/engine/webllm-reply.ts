/**
 * Turns web-llm's streamed text into Engine chunks: reasoning split off, tool calls recognised,
 * logprobs kept with the text they belong to, usage and finish reason at the end.
 */

import type { EngineChunk, FinishReason, TokenLogprob } from './types';
import { ThinkSplitter } from './webllm-think';
import { classifyReplyStart, parseToolCalls } from './webllm-tool-prompt';

export interface ReplyOptions {
  /** Split `<think>` blocks into reasoning chunks (thinking models only). */
  splitThink: boolean;
  /** 'auto': the reply may be a call or text; 'forced': it must be a call; 'none': text only. */
  tools: 'none' | 'auto' | 'forced';
  /** Names a parsed call may use; other names make the reply text. */
  toolNames: string[];
}

/** web-llm's usage, as its last stream chunk carries it. */
export interface WebLLMUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Accumulates one reply. `push` returns the chunks ready to stream now; `finish` the rest, ending
 * with `done`.
 *
 * @example
 * const r = new ReplyAssembler({ splitThink: false, tools: 'none', toolNames: [] });
 * r.push('Hi'); // [{type:'text', delta:'Hi'}]
 * r.finish('stop', { prompt_tokens: 3, completion_tokens: 1 }); // [{type:'done', finishReason:'stop', usage:{…}}]
 */
export class ReplyAssembler {
  private readonly think: ThinkSplitter | null;
  /** 'undecided' until the start of the answer tells text from a call; 'call' buffers everything. */
  private route: 'undecided' | 'text' | 'call';
  private buffered = '';
  private pendingLogprobs: TokenLogprob[] = [];
  private startLogprobs: TokenLogprob[] = [];
  private deltas = 0;
  private thinkingDeltas = 0;

  constructor(private readonly opts: ReplyOptions) {
    this.think = opts.splitThink ? new ThinkSplitter() : null;
    this.route = opts.tools === 'none' ? 'text' : opts.tools === 'forced' ? 'call' : 'undecided';
  }

  push(delta: string, logprobs?: TokenLogprob[]): EngineChunk[] {
    this.deltas++;
    if (!this.think) return this.answer(delta, logprobs ?? []);
    const split = this.think.push(delta);
    if (split.thinking) this.thinkingDeltas++;
    const out: EngineChunk[] = [];
    if (split.reasoning !== '') out.push({ type: 'reasoning', delta: split.reasoning });
    if (split.answer !== '') {
      const lp = [...this.startLogprobs, ...(logprobs ?? [])];
      this.startLogprobs = [];
      out.push(...this.answer(split.answer, lp));
    } else if (split.thinking) {
      // Tokens of the think block are not part of the output text, so neither are their logprobs.
      this.startLogprobs = [];
    } else {
      // Held back while `<think>` could still open: keep them until we know which side they are on.
      this.startLogprobs.push(...(logprobs ?? []));
    }
    return out;
  }

  finish(finishReason: string | null | undefined, usage: WebLLMUsage | undefined): EngineChunk[] {
    const out: EngineChunk[] = [];
    if (this.think) {
      const rest = this.think.flush();
      if (rest.reasoning !== '') out.push({ type: 'reasoning', delta: rest.reasoning });
      out.push(...this.answer(rest.answer, this.startLogprobs));
    }
    let reason: FinishReason = finishReason === 'length' ? 'length' : 'stop';
    if (this.route !== 'text' && this.buffered !== '') {
      const calls = parseToolCalls(this.buffered, this.opts.toolNames);
      if (calls) {
        for (const c of calls) out.push({ type: 'tool_call', name: c.name, arguments: c.arguments });
        reason = 'tool_calls';
      } else {
        out.push(this.textChunk(this.buffered));
      }
      this.buffered = '';
    }
    const outputTokens = usage?.completion_tokens ?? this.deltas;
    out.push({
      type: 'done',
      finishReason: reason,
      usage: {
        input_tokens: usage?.prompt_tokens ?? 0,
        output_tokens: outputTokens,
        reasoning_tokens: Math.min(this.thinkingDeltas, outputTokens),
      },
    });
    return out;
  }

  private answer(text: string, logprobs: TokenLogprob[]): EngineChunk[] {
    this.pendingLogprobs.push(...logprobs);
    if (this.route === 'text') return text === '' ? [] : [this.textChunk(text)];
    this.buffered += text;
    if (this.route === 'undecided') {
      const verdict = classifyReplyStart(this.buffered);
      if (verdict === 'undecided') return [];
      this.route = verdict;
      if (verdict === 'text') {
        const all = this.buffered;
        this.buffered = '';
        return [this.textChunk(all)];
      }
    }
    return [];
  }

  private textChunk(delta: string): EngineChunk {
    const logprobs = this.pendingLogprobs;
    this.pendingLogprobs = [];
    return logprobs.length > 0 ? { type: 'text', delta, logprobs } : { type: 'text', delta };
  }
}
