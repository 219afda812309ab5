/**
 * One chat conversation against the in-tab Responses API. Memory is server-side: each turn sends only
 * the new user text plus `previous_response_id`, exactly as an app would against api.openai.com.
 */
import OpenAI from 'openai';
import type { ChatView } from './chat-view';
import { errorMessage } from './dom';
import { citedFiles, type HostedTools, hostedItemView } from './hosted';
import { rememberResponse } from './stored/chat-restore';

type ResponseStream = ReturnType<OpenAI['responses']['stream']>;
type TurnInput = string | OpenAI.Responses.ResponseInputItem[];

/**
 * Formats an OpenAI-shaped error for the chat log: status, code and the server's own message.
 * @example
 * describeError(new OpenAI.BadRequestError(400, { message: 'bad', code: 'x' }, undefined, new Headers()));
 * // → "Error 400 (x): bad"
 */
export function describeError(err: unknown): string {
  if (err instanceof OpenAI.APIError) {
    const body = err.error as { message?: unknown } | undefined;
    // The SDK prefixes its own message with the status; prefer the server's bare message.
    const message = typeof body?.message === 'string' ? body.message : err.message;
    const status = err.status === undefined ? 'Error' : `Error ${err.status}`;
    return `${status}${err.code ? ` (${err.code})` : ''}: ${message}`;
  }
  return `Error: ${errorMessage(err)}`;
}

/** Every annotation on the output's text parts, in order. */
function annotationsOf(
  output: OpenAI.Responses.ResponseOutputItem[],
): OpenAI.Responses.ResponseOutputText['annotations'] {
  return output.flatMap((o) =>
    o.type === 'message' ? o.content.flatMap((c) => (c.type === 'output_text' ? c.annotations : [])) : [],
  );
}

/**
 * The muted line under a reply, in plain words rather than the API's (`incomplete:
 * max_output_tokens`, `1 tokens`).
 *
 * @example
 * replyNote({ status: 'completed', tokens: 1, seconds: '0.4' }); // "1 token in 0.4 s"
 * replyNote({ status: 'incomplete', reason: 'max_output_tokens', tokens: 48, seconds: '2.0' });
 * // "Cut off at the length limit (48 tokens) in 2.0 s"
 */
export function replyNote(end: {
  status: 'completed' | 'incomplete';
  reason?: string | null;
  tokens?: number;
  seconds: string;
}): string {
  const count = end.tokens === undefined ? '' : `${end.tokens} ${end.tokens === 1 ? 'token' : 'tokens'}`;
  if (end.status === 'completed') return count ? `${count} in ${end.seconds} s` : `${end.seconds} s`;
  const why =
    end.reason === 'max_output_tokens'
      ? 'Cut off at the length limit'
      : end.reason === 'content_filter'
        ? 'Stopped by the content filter'
        : 'Ended early';
  return `${why}${count ? ` (${count})` : ''} in ${end.seconds} s`;
}

/**
 * Drives a `ChatView`: streams replies, remembers the last completed response, stops on request.
 * @example
 * const session = new ChatSession(client, view, () => picker.model);
 * await session.send('hello there', '');
 */
export class ChatSession {
  #previousResponseId: string | null = null;
  #stream: ResponseStream | null = null;
  /** True while a turn looks up its vector stores, before its stream exists. */
  #starting = false;

  constructor(
    private readonly client: OpenAI,
    private readonly view: ChatView,
    private readonly currentModel: () => string,
    /** A cap on a model's reply, e.g. for a random-weight model that would babble to its context. */
    private readonly maxOutputTokens: (model: string) => number | undefined = () => undefined,
    /** The vector stores a turn may search (`file_search`); none, no tool. */
    private readonly vectorStoreIds: () => Promise<string[]> = async () => [],
    /** The other hosted tools a turn offers (`code_interpreter`, `mcp`), as the Tools panel says now. */
    private readonly hostedTools: () => HostedTools = () => ({ tools: [], include: [] }),
  ) {}

  /** Sends one user turn and streams the reply into the view. Resolves when the turn has ended. */
  async send(text: string, instructions: string): Promise<void> {
    await this.#turn(text, text, instructions);
  }

  /**
   * Answers an `mcp_approval_request` with an `mcp_approval_response` on top of the last response
   * (`previous_response_id`), as OpenAI's approval flow does; false while another turn runs.
   */
  answerApproval(request: OpenAI.Responses.ResponseOutputItem.McpApprovalRequest, approve: boolean): boolean {
    if (this.#stream || this.#starting) return false;
    void this.#turn(
      [{ type: 'mcp_approval_response', approval_request_id: request.id, approve }],
      `${approve ? 'Approved' : 'Declined'}: ${request.name} on ${request.server_label}`,
      '',
    );
    return true;
  }

  async #turn(input: TurnInput, shown: string, instructions: string): Promise<void> {
    if (this.#stream || this.#starting) return;
    this.#starting = true;
    const model = this.currentModel();
    this.view.addUser(shown);
    this.view.setBusy(true);
    const reply = this.view.startReply(model);
    const startedAt = performance.now();
    let note: string | undefined;
    let failed = false;
    const fail = (message: string): void => {
      failed = true;
      this.view.addError(message);
    };

    const cap = this.maxOutputTokens(model);
    const stores = await this.vectorStoreIds().catch(() => []);
    const hosted = this.hostedTools();
    const tools: OpenAI.Responses.Tool[] = [
      ...(stores.length > 0 ? [{ type: 'file_search' as const, vector_store_ids: stores }] : []),
      ...hosted.tools,
    ];
    const include: OpenAI.Responses.ResponseIncludable[] = [
      ...(stores.length > 0 ? ['file_search_call.results' as const] : []),
      ...hosted.include,
    ];
    this.#starting = false;
    const stream = this.client.responses.stream({
      model,
      input,
      ...(tools.length > 0 ? { tools } : {}),
      ...(include.length > 0 ? { include } : {}),
      ...(cap ? { max_output_tokens: cap } : {}),
      ...(instructions ? { instructions } : {}),
      ...(this.#previousResponseId ? { previous_response_id: this.#previousResponseId } : {}),
    });
    this.#stream = stream;
    try {
      for await (const event of stream) {
        switch (event.type) {
          case 'response.output_text.delta':
            reply.appendText(event.delta);
            break;
          case 'response.refusal.delta':
            reply.appendRefusal(event.delta);
            break;
          case 'response.output_item.done': {
            const view = hostedItemView(event.item, this);
            if (view) reply.addHosted(view);
            break;
          }
          case 'response.completed': {
            // Only a completed response becomes the memory: a stopped or failed turn is left out.
            this.#previousResponseId = event.response.id;
            // An id only: after a reload the chat is read back from intab's store (stored/chat-restore.ts).
            rememberResponse(event.response.id);
            reply.setSources(citedFiles(annotationsOf(event.response.output)));
            const tokens = event.response.usage?.output_tokens;
            note = replyNote({ status: 'completed', tokens, seconds: secondsSince(startedAt) });
            break;
          }
          case 'response.incomplete':
            note = replyNote({
              status: 'incomplete',
              reason: event.response.incomplete_details?.reason,
              tokens: event.response.usage?.output_tokens,
              seconds: secondsSince(startedAt),
            });
            break;
          case 'response.failed': {
            const error = event.response.error;
            fail(`The model could not answer${error ? `: ${error.message} (${error.code})` : '.'}`);
            break;
          }
          case 'error':
            fail(`Error${event.code ? ` (${event.code})` : ''}: ${event.message}`);
            break;
        }
      }
    } catch (err) {
      if (err instanceof OpenAI.APIUserAbortError) note = 'Stopped';
      else fail(describeError(err));
    } finally {
      // A failed turn with no text drops its empty bubble, so the error line reads as the reply.
      reply.finish(note ?? (failed ? 'Failed' : undefined), failed);
      if (this.#stream === stream) this.#stream = null;
      this.view.setBusy(false);
    }
  }

  /** Aborts the running turn; the SDK cancels the fetch body, which interrupts generation in the worker. */
  stop(): void {
    this.#stream?.abort();
  }

  /** Continues a chat read back from the store: the next turn's `previous_response_id`. */
  continueFrom(responseId: string): void {
    this.#previousResponseId = responseId;
    rememberResponse(responseId);
  }

  /** Forgets the conversation: the next turn starts without `previous_response_id`. */
  reset(): void {
    this.stop();
    this.#previousResponseId = null;
    rememberResponse(null);
    this.view.clear();
    this.view.addNotice('New chat: earlier messages are forgotten.');
  }
}

function secondsSince(startedAt: number): string {
  return ((performance.now() - startedAt) / 1000).toFixed(1);
}
