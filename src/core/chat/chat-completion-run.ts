import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageToolCall,
  ChatCompletionTokenLogprob,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { customInput } from '../../engine/custom-grammar';
import type { EngineChunk, EngineUsage, TokenLogprob } from '../../engine/types';
import { newId } from '../http/ids';
import { StopScanner } from './stop-sequences';

type Delta = ChatCompletionChunk.Choice.Delta;

/** How a chat completion is shaped beyond the engine's chunks. */
export interface ChatRunOptions {
  id: string;
  /** Epoch seconds. */
  created: number;
  model: string;
  logprobs: boolean;
  /** Streams only: every chunk carries `usage: null`, and a last chunk the usage with no choices. */
  includeUsage: boolean;
  /** Tool calls past this many are dropped (1 with `parallel_tool_calls: false`). */
  maxToolCalls: number;
  /** The request's custom tools: their calls are `type: 'custom'` with `custom.input`. */
  customTools?: ReadonlySet<string>;
  stop: string[];
  /** Prompt tokens for usage when a stop sequence ends the run before the engine reports its own. */
  promptTokens: number;
}

type FinishReason = ChatCompletion.Choice['finish_reason'];

/**
 * Turns engine chunks into a `chat.completion` and, as they come, into the `chat.completion.chunk`s
 * OpenAI streams: a first chunk with the role, content (or refusal) deltas, each tool call as a
 * chunk with its id, type and name then one with its arguments, a last chunk with `finish_reason`,
 * and, with `include_usage`, a usage chunk with no choices. Reasoning chunks are counted in
 * `completion_tokens_details.reasoning_tokens` and otherwise dropped: a chat message has no place
 * for reasoning (OpenAI's reasoning models do not return theirs there either).
 *
 * @example
 * const run = new ChatCompletionRun(opts, (chunk) => queue.push({ data: chunk }));
 * for await (const c of engine.generate(req, signal)) if (run.push(c)) break; // a stop sequence ended it
 * const completion = run.completion();
 */
export class ChatCompletionRun {
  private started = false;
  private text = '';
  private refusal: string | null = null;
  private readonly toolCalls: ChatCompletionMessageToolCall[] = [];
  private readonly logprobs: ChatCompletionTokenLogprob[] = [];
  /** Logprobs of text the stop scanner still holds, sent with that text. */
  private pendingLogprobs: ChatCompletionTokenLogprob[] = [];
  private readonly scanner: StopScanner;
  /** Engine chunks so far (one token each for streaming engines), for usage after a stop sequence. */
  private outputTokens = 0;
  private reasoningTokens = 0;
  private finishReason: FinishReason | null = null;
  private usage: CompletionUsage | null = null;

  constructor(
    private readonly opts: ChatRunOptions,
    private readonly emit: (chunk: ChatCompletionChunk) => void,
  ) {
    this.scanner = new StopScanner(opts.stop);
  }

  /** Whether the completion has its finish reason (the engine finished, or a stop sequence came). */
  get settled(): boolean {
    return this.finishReason !== null;
  }

  /** Takes one engine chunk; returns true when a stop sequence ended the completion (stop generating). */
  push(chunk: EngineChunk): boolean {
    if (this.settled) return true;
    // Chat Completions streams a call whole here: its partial arguments are not sent.
    if (chunk.type === 'tool_call_delta') return false;
    if (!this.started) {
      this.started = true;
      this.send({ role: 'assistant', content: '', refusal: null });
    }
    if (chunk.type !== 'done') this.outputTokens += 1;
    switch (chunk.type) {
      case 'text':
        return this.textDelta(chunk.delta, chunk.logprobs);
      case 'refusal':
        this.refusal = (this.refusal ?? '') + chunk.delta;
        this.send({ refusal: chunk.delta });
        return false;
      case 'reasoning':
        this.reasoningTokens += 1;
        return false;
      case 'tool_call':
        this.toolCall(chunk.name, chunk.arguments);
        return false;
      case 'done':
        this.sendText(this.scanner.flush());
        this.finish(
          chunk.finishReason === 'tool_calls' && this.toolCalls.length === 0 ? 'stop' : chunk.finishReason,
          chunk.usage,
        );
        return false;
    }
  }

  /** The whole completion, for a non-streamed answer; call once settled. */
  completion(): ChatCompletion {
    const text =
      this.text !== '' || (this.refusal === null && this.toolCalls.length === 0) ? this.text : null;
    return {
      id: this.opts.id,
      object: 'chat.completion',
      created: this.opts.created,
      model: this.opts.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: text,
            refusal: this.refusal,
            annotations: [],
            ...(this.toolCalls.length > 0 && { tool_calls: this.toolCalls }),
          },
          logprobs: this.opts.logprobs ? { content: this.logprobs, refusal: null } : null,
          finish_reason: this.finishReason ?? 'stop',
        },
      ],
      usage: this.usage ?? undefined,
      service_tier: 'default',
    };
  }

  private textDelta(delta: string, logprobs?: TokenLogprob[]): boolean {
    if (this.opts.logprobs && logprobs) this.pendingLogprobs.push(...logprobs.map(toWireLogprob));
    const { text, stopped } = this.scanner.push(delta);
    this.sendText(text);
    if (stopped) {
      // The engine never reported usage: count what it had produced when the stop sequence came.
      this.finish('stop', {
        input_tokens: this.opts.promptTokens,
        output_tokens: this.outputTokens,
        reasoning_tokens: this.reasoningTokens,
      });
    }
    return stopped;
  }

  private sendText(text: string): void {
    if (text === '') return;
    this.text += text;
    const logprobs = this.pendingLogprobs;
    this.pendingLogprobs = [];
    this.logprobs.push(...logprobs);
    this.send({ content: text }, null, this.opts.logprobs ? { content: logprobs, refusal: null } : null);
  }

  private toolCall(name: string, args: string): void {
    // OpenAI drops calls past the limit; a model told "one call" may still write two.
    if (this.toolCalls.length >= this.opts.maxToolCalls) return;
    const index = this.toolCalls.length;
    const id = newId('call');
    if (this.opts.customTools?.has(name)) this.customCall(index, id, name, customInput(args));
    else {
      this.toolCalls.push({ id, type: 'function', function: { name, arguments: args } });
      this.send({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
      this.send({ tool_calls: [{ index, function: { arguments: args } }] });
    }
  }

  /**
   * A custom call, streamed as a function call is: its id, type and name, then its input (the chunk
   * types of the `openai` package name only `function`; OpenAI's custom deltas carry `custom`).
   */
  private customCall(index: number, id: string, name: string, input: string): void {
    this.toolCalls.push({ id, type: 'custom', custom: { name, input } });
    const delta = (custom: object) => ({ tool_calls: [{ index, custom }] }) as unknown as Delta;
    this.send({
      tool_calls: [{ index, id, type: 'custom', custom: { name, input: '' } }],
    } as unknown as Delta);
    this.send(delta({ input }));
  }

  private finish(reason: FinishReason, usage: EngineUsage): void {
    this.finishReason = reason;
    this.usage = {
      prompt_tokens: usage.input_tokens,
      completion_tokens: usage.output_tokens,
      total_tokens: usage.input_tokens + usage.output_tokens,
      prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: usage.reasoning_tokens,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
    this.send({}, reason);
    if (this.opts.includeUsage) this.emit({ ...this.base(), choices: [], usage: this.usage });
  }

  private send(
    delta: ChatCompletionChunk.Choice.Delta,
    finishReason: FinishReason | null = null,
    logprobs: ChatCompletionChunk.Choice.Logprobs | null = null,
  ): void {
    this.emit({
      ...this.base(),
      choices: [{ index: 0, delta, logprobs, finish_reason: finishReason }],
      ...(this.opts.includeUsage && { usage: null }),
    });
  }

  private base() {
    const { id, created, model } = this.opts;
    return { id, object: 'chat.completion.chunk' as const, created, model, service_tier: 'default' as const };
  }
}

function toWireLogprob(l: TokenLogprob): ChatCompletionTokenLogprob {
  return {
    token: l.token,
    logprob: l.logprob,
    bytes: l.bytes,
    top_logprobs: l.top_logprobs.map((t) => ({ token: t.token, logprob: t.logprob, bytes: t.bytes })),
  };
}
