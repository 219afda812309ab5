/**
 * Turns web-llm's streamed text into Engine chunks: reasoning split off, tool calls recognised in
 * the family's format wherever they appear, logprobs kept with the text they belong to, usage and
 * finish reason at the end.
 */

import { CallStream, type CallStreamPiece } from '../tool-formats/call-stream';
import type { ReasoningMarkers } from '../tool-formats/model-family';
import type { ToolFormat } from '../tool-formats/types';
import type { EngineChunk, FinishReason, FunctionToolSpec, TokenLogprob } from '../types';
import { ThinkSplitter } from './webllm-think';

export interface ReplyOptions {
  /** The family's reasoning markers; null when the reply holds no reasoning block. */
  reasoning: ReasoningMarkers | null;
  /** The tool-call format to recognise; null when no tools were offered. */
  format: ToolFormat | null;
  /** Names a parsed call may use; other names make the call text. */
  toolNames: string[];
  /** The callable tools, whose schemas type bare argument values; names alone when absent. */
  tools?: FunctionToolSpec[];
  /** Where the grammar lets a call open; the format's markers when absent (no grammar to follow). */
  openings?: readonly string[];
}

/** web-llm's usage, as its last stream chunk carries it, with the prompt counted whole. */
export interface WebLLMUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

/**
 * Accumulates one reply. `push` returns the chunks ready to stream now; `finish` the rest, ending
 * with `done`. `countTokens` (the model's tokenizer) turns reasoning text into `reasoning_tokens`;
 * without it each reasoning delta counts as one token, as web-llm streams one token per delta.
 *
 * @example
 * const r = new ReplyAssembler({ reasoning: null, format: null, toolNames: [] });
 * r.push('Hi'); // [{type:'text', delta:'Hi'}]
 * r.finish('stop', { prompt_tokens: 3, completion_tokens: 1 }); // [{type:'done', finishReason:'stop', usage:{…}}]
 */
export class ReplyAssembler {
  private readonly think: ThinkSplitter | null;
  private readonly calls: CallStream | null;
  private pendingLogprobs: TokenLogprob[] = [];
  private startLogprobs: TokenLogprob[] = [];
  private deltas = 0;
  private reasoningDeltas = 0;
  private reasoningText = '';
  /** Tool calls yielded so far: the index of the call being written. */
  private callCount = 0;

  constructor(
    opts: ReplyOptions,
    private readonly countTokens?: (text: string) => number,
  ) {
    this.think = opts.reasoning ? new ThinkSplitter(opts.reasoning) : null;
    this.calls = opts.format
      ? new CallStream(opts.format, opts.tools ?? opts.toolNames, opts.openings)
      : null;
  }

  push(delta: string, logprobs?: TokenLogprob[]): EngineChunk[] {
    this.deltas++;
    if (!this.think) return this.answer(delta, logprobs ?? []);
    const split = this.think.push(delta);
    const out: EngineChunk[] = [];
    if (split.thinking) this.reasoningDeltas++;
    if (split.reasoning !== '') out.push(this.reasoning(split.reasoning));
    if (split.answer !== '') {
      const lp = [...this.startLogprobs, ...(logprobs ?? [])];
      this.startLogprobs = [];
      out.push(...this.answer(split.answer, lp));
    } else if (split.thinking) {
      // Tokens of the think block are not part of the output text, so neither are their logprobs.
      this.startLogprobs = [];
    } else {
      // Held back while the block could still open: keep them until we know which side they are on.
      this.startLogprobs.push(...(logprobs ?? []));
    }
    return out;
  }

  finish(finishReason: string | null | undefined, usage: WebLLMUsage | undefined): EngineChunk[] {
    const out: EngineChunk[] = [];
    if (this.think) {
      const rest = this.think.flush();
      if (rest.reasoning !== '') out.push(this.reasoning(rest.reasoning));
      out.push(...this.answer(rest.answer, this.startLogprobs));
    }
    if (this.calls) out.push(...this.pieces(this.calls.finish(finishReason === 'length')));
    if (this.pendingLogprobs.length > 0 && out.length > 0) {
      // Logprobs of text held back until the end ride on the last text chunk.
      const lastText = out.findLast((c) => c.type === 'text');
      if (lastText?.type === 'text')
        lastText.logprobs = [...(lastText.logprobs ?? []), ...this.pendingLogprobs];
      this.pendingLogprobs = [];
    }
    let reason: FinishReason = finishReason === 'length' ? 'length' : 'stop';
    if (this.callCount > 0 && reason === 'stop') reason = 'tool_calls';
    const outputTokens = usage?.completion_tokens ?? this.deltas;
    const reasoningTokens = this.countTokens ? this.countTokens(this.reasoningText) : this.reasoningDeltas;
    out.push({
      type: 'done',
      finishReason: reason,
      usage: {
        input_tokens: usage?.prompt_tokens ?? 0,
        output_tokens: outputTokens,
        reasoning_tokens: Math.min(reasoningTokens, outputTokens),
      },
    });
    return out;
  }

  private reasoning(delta: string): EngineChunk {
    this.reasoningText += delta;
    return { type: 'reasoning', delta };
  }

  private answer(text: string, logprobs: TokenLogprob[]): EngineChunk[] {
    this.pendingLogprobs.push(...logprobs);
    if (!this.calls) return text === '' ? [] : [this.textChunk(text)];
    return text === '' ? [] : this.pieces(this.calls.push(text));
  }

  private pieces(pieces: CallStreamPiece[]): EngineChunk[] {
    const out: EngineChunk[] = [];
    for (const p of pieces) {
      if (p.type === 'text') out.push(this.textChunk(p.text));
      else if (p.type === 'call_delta')
        out.push({ type: 'tool_call_delta', index: this.callCount, name: p.name, arguments_delta: p.delta });
      else
        for (const c of p.calls) {
          this.callCount++;
          out.push({ type: 'tool_call', name: c.name, arguments: c.arguments });
        }
    }
    return out;
  }

  private textChunk(delta: string): EngineChunk {
    const logprobs = this.pendingLogprobs;
    this.pendingLogprobs = [];
    return logprobs.length > 0 ? { type: 'text', delta, logprobs } : { type: 'text', delta };
  }
}
