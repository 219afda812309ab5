import type {
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputRefusal,
  ResponseOutputText,
  ResponseReasoningItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { ApiError } from '../../../common/api-error';
import type { EngineChunk, EngineUsage, FinishReason, TokenLogprob } from '../../../engine/types';
import type { RunOutput } from '../../hosted';
import { newId } from '../../http/ids';
import type { ResponseObject } from '../request/response-object';
import type { IdPrefix, RunOptions } from '../request/run-options';
import { emitCustomToolCall } from './custom-call-events';
import { OpenReasoning } from './reasoning-events';
import { addCitation, type Citing, clone, MentionCites, type OpenPart, toWireLogprob } from './run-parts';
import { emitToolCall } from './tool-call-items';

/** Events without their sequence number; the run numbers them as it emits them. */
type Unnumbered<E> = E extends unknown ? Omit<E, 'sequence_number'> : never;
export type StreamEvent = ResponseStreamEvent;

/** How the run shapes its output beyond what the engine says. */
/**
 * Turns engine chunks into the Responses output items and the stream events OpenAI sends, in
 * OpenAI's order, numbering events from 0. It owns the response object: its output, status and
 * usage are always what the events so far describe.
 *
 * @example
 * const run = new ResponseRun(response, (e) => sink.push(e), { logprobs: false, summary: false, encryptedContent: false });
 * run.start();
 * for await (const chunk of engine.generate(req, signal)) run.push(chunk);
 */
export class ResponseRun {
  private seq = 0;
  private open: OpenPart | null = null;
  private message: { item: ResponseOutputMessage; outputIndex: number } | null = null;
  private toolCalls = 0;
  /** Set by {@link close}: the items are done, the terminal event is still to come. */
  private closedWith: FinishReason | null = null;
  /** The container files that text parts cite where they name them (watched once code wrote some). */
  readonly mentions = new MentionCites();

  constructor(
    readonly response: ResponseObject,
    private readonly emit: (event: StreamEvent) => void,
    private readonly opts: RunOptions,
  ) {}

  /** `response.created` then `response.in_progress`. */
  start(): void {
    this.send({ type: 'response.created', response: this.snapshot() });
    // Background responses are created `queued`; the run picks them up at once.
    this.response.status = 'in_progress';
    this.send({ type: 'response.in_progress', response: this.snapshot() });
  }

  push(chunk: EngineChunk): void {
    switch (chunk.type) {
      case 'text':
        this.textDelta(chunk.delta, chunk.logprobs);
        return;
      case 'refusal':
        this.refusalDelta(chunk.delta);
        return;
      case 'reasoning':
        this.reasoningDelta(chunk.delta);
        return;
      case 'tool_call':
        this.toolCall(chunk.name, chunk.arguments);
        return;
      case 'done':
        this.finish(chunk.finishReason, chunk.usage);
        return;
    }
  }

  /** Whether `event` ends a stream: nothing follows it (but an `error` after a failed final write). */
  static isTerminal(event: { type: string }): boolean {
    return TERMINAL_TYPES.has(event.type);
  }

  /** Whether a terminal state has been reached. */
  get settled(): boolean {
    return this.response.status !== 'in_progress' && this.response.status !== 'queued';
  }

  /** {@link close} then {@link end}: the model is done, and nothing has to happen in between. */
  finish(reason: FinishReason, usage: EngineUsage): void {
    this.close(reason, usage);
    this.end();
  }

  /**
   * Closes every open item (their `*.done` events go out) and sets the usage, but sends no terminal
   * event yet: what must succeed before the response may say `completed` (its conversation append)
   * runs in between, and {@link fail} still ends it `failed` if that does not.
   */
  close(reason: FinishReason, usage: EngineUsage): void {
    if (this.settled || this.closedWith) return;
    this.closedWith = reason;
    this.closeAll(reason === 'length' ? 'incomplete' : 'completed');
    this.response.usage = {
      input_tokens: usage.input_tokens,
      input_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, cache_write_tokens: 0 },
      output_tokens: usage.output_tokens,
      output_tokens_details: { reasoning_tokens: usage.reasoning_tokens },
      total_tokens: usage.input_tokens + usage.output_tokens,
    };
  }

  /** Sends the terminal event of a {@link close}d run: `response.completed`, or `response.incomplete` at the length limit. */
  end(): void {
    if (this.settled || !this.closedWith) return;
    if (this.closedWith === 'length') {
      this.response.status = 'incomplete';
      this.response.incomplete_details = { reason: 'max_output_tokens' };
      this.send({ type: 'response.incomplete', response: this.snapshot() });
    } else {
      this.response.status = 'completed';
      this.response.completed_at = this.nowSeconds();
      this.send({ type: 'response.completed', response: this.snapshot() });
    }
  }

  /**
   * Ends the run as `failed`: open items end `incomplete`, then `response.failed`. `response.error`
   * keeps the error's own code (`context_length_exceeded`, `model_download_failed`, …): the openai
   * types list only OpenAI's hosted codes, but the wire (and the spec) carry any string, and the SDK
   * passes it through.
   */
  fail(error: ApiError): void {
    if (this.settled) return;
    this.closeAll('incomplete');
    this.response.status = 'failed';
    const code = error.code ?? 'server_error';
    this.response.error = { code, message: error.message } as ResponseObject['error'];
    this.send({ type: 'response.failed', response: this.snapshot() });
  }

  /**
   * An in-band `error` event, for failures after the terminal event (e.g. the final store write).
   * The types describe it flat, the spec (and OpenAI's newer wire) nest it in `error`: both are sent.
   */
  error(error: ApiError): void {
    const { code, message, param } = error;
    this.send({ type: 'error', code, message, param, error: { type: error.type, code, message, param } });
  }

  /**
   * Ends the run as `cancelled` (the client went away, asked to stop, or deleted the response): open
   * items end `incomplete`, then `response.incomplete` with the `cancelled` response. OpenAI's event
   * union has no cancelled event, but a stream (and a background response's event log) must end
   * with a terminal event, and the SDKs end a stream on `response.incomplete` with its snapshot.
   */
  cancel(): void {
    if (this.settled) return;
    this.closeAll('incomplete');
    this.response.status = 'cancelled';
    this.send({ type: 'response.incomplete', response: this.snapshot() });
  }

  private textDelta(delta: string, logprobs?: TokenLogprob[]): void {
    const open = this.open?.kind === 'text' ? this.open : this.openMessagePart('text');
    if (open.kind !== 'text') return;
    open.part.text += delta;
    const lp = this.opts.logprobs && logprobs ? logprobs.map(toWireLogprob) : [];
    if (this.opts.logprobs && open.part.logprobs)
      open.part.logprobs.push(...(lp as NonNullable<ResponseOutputText['logprobs']>));
    this.send({
      type: 'response.output_text.delta',
      item_id: open.item.id,
      output_index: open.outputIndex,
      content_index: open.contentIndex,
      delta,
      logprobs: lp,
    });
    for (const e of this.mentions.events(open, false)) this.send(e);
  }

  private refusalDelta(delta: string): void {
    const open = this.open?.kind === 'refusal' ? this.open : this.openMessagePart('refusal');
    if (open.kind !== 'refusal') return;
    open.part.refusal += delta;
    this.send({
      type: 'response.refusal.delta',
      item_id: open.item.id,
      output_index: open.outputIndex,
      content_index: open.contentIndex,
      delta,
    });
  }

  private reasoningDelta(delta: string): void {
    if (this.open?.kind !== 'reasoning') {
      this.closeAll('completed');
      const item: ResponseReasoningItem = { id: this.id('rs'), type: 'reasoning', summary: [], content: [] };
      this.open = new OpenReasoning(item, this.addItem(item), (e) => this.send(e));
    }
    this.open.delta(delta);
  }

  private toolCall(name: string, args: string): void {
    // OpenAI ignores calls past max_tool_calls; a model told "one call" may still write two.
    if (this.toolCalls >= (this.opts.maxToolCalls ?? Number.POSITIVE_INFINITY)) return;
    this.toolCalls += 1;
    this.closeAll('completed');
    emitToolCall(
      this.opts,
      name,
      args,
      (item) => this.addItem(item),
      (e) => this.send(e),
      (p) => this.id(p),
    );
  }

  /** A stored `custom_tool_call` replayed: its item and events, as the live run sent them. */
  customToolCall(name: string, input: string): void {
    this.closeAll('completed');
    emitCustomToolCall(
      name,
      input,
      (item) => this.addItem(item),
      (e) => this.send(e),
      (p) => this.id(p),
    );
  }

  /** Ends the open message or reasoning item (`completed`): an engine pass ended, and the next writes new ones. */
  closeItems(): void {
    this.closeAll('completed');
  }

  /** How hosted tools (core/hosted) add their items: what is open closes first. */
  hostedOutput(): RunOutput {
    const addItem = (item: ResponseOutputItem) => {
      this.closeAll('completed');
      return this.addItem(item);
    };
    return { addItem, send: (e) => this.send(e) };
  }

  /** Cites `cited` in the text part being written now (a file where it ends), announced by `output_text.annotation.added`. */
  cite(cited: Citing): void {
    const open = this.open?.kind === 'text' ? this.open : this.openMessagePart('text');
    if (open.kind === 'text') this.send(addCitation(open, cited));
  }

  /** Opens a text or refusal part in the current message item, opening the message if needed. */
  private openMessagePart(kind: 'text' | 'refusal'): OpenPart {
    if (this.open) this.closePart();
    if (!this.message) {
      const item: ResponseOutputMessage = {
        id: this.id('msg'),
        type: 'message',
        status: 'in_progress',
        role: 'assistant',
        content: [],
      };
      this.message = { item, outputIndex: this.addItem(item) };
    }
    const { item, outputIndex } = this.message;
    const contentIndex = item.content.length;
    const part: ResponseOutputText | ResponseOutputRefusal =
      kind === 'text'
        ? { type: 'output_text', text: '', annotations: [], logprobs: [] }
        : { type: 'refusal', refusal: '' };
    item.content.push(part);
    this.send({
      type: 'response.content_part.added',
      item_id: item.id,
      output_index: outputIndex,
      content_index: contentIndex,
      part: clone(part),
    });
    this.open = { kind, item, outputIndex, contentIndex, part } as OpenPart;
    return this.open;
  }

  private addItem(item: ResponseOutputItem): number {
    const outputIndex = this.response.output.length;
    this.response.output.push(item);
    this.send({ type: 'response.output_item.added', output_index: outputIndex, item: clone(item) });
    return outputIndex;
  }

  /** Ends the open content part with its `*.done` and `content_part.done` events. */
  private closePart(emit = true): void {
    const open = this.open;
    if (!open) return;
    this.open = null;
    if (open.kind === 'reasoning') {
      open.close(this.opts, emit);
      return;
    }
    if (!emit) return;
    const base = { item_id: open.item.id, output_index: open.outputIndex, content_index: open.contentIndex };
    if (open.kind === 'text') {
      for (const e of this.mentions.events(open, true)) this.send(e);
      this.send({
        type: 'response.output_text.done',
        ...base,
        text: open.part.text,
        logprobs: open.part.logprobs ?? [],
      });
    } else {
      this.send({ type: 'response.refusal.done', ...base, refusal: open.part.refusal });
    }
    this.send({ type: 'response.content_part.done', ...base, part: clone(open.part) });
  }

  /** Closes the open part and the open message item, with status `status`. */
  private closeAll(status: 'completed' | 'incomplete', emit = true): void {
    this.closePart(emit);
    const msg = this.message;
    if (!msg) return;
    this.message = null;
    msg.item.status = status;
    if (emit)
      this.send({ type: 'response.output_item.done', output_index: msg.outputIndex, item: clone(msg.item) });
  }

  /**
   * The response as it is now. Only `output` changes in place (the run appends items and text to
   * it); every other field is replaced whole or never changes, and the request's echo (instructions,
   * tools, the json_schema) can be most of a 1 MB request: deep-cloning it for each of the three
   * snapshots of a run held the event loop for tens of milliseconds. So those are shared, read-only.
   */
  snapshot(): ResponseObject {
    return { ...this.response, output: clone(this.response.output) };
  }

  private send(event: Unnumbered<StreamEvent> | Record<string, unknown>): void {
    this.emit({ ...event, sequence_number: this.seq++ } as StreamEvent);
  }

  private id(prefix: IdPrefix): string {
    return (this.opts.newId ?? newId)(prefix);
  }

  private nowSeconds(): number {
    return Math.floor((this.opts.now ?? Date.now)() / 1000);
  }
}

const TERMINAL_TYPES = new Set(['response.completed', 'response.incomplete', 'response.failed']);
