import type {
  ResponseOutputItem,
  ResponseOutputMessage,
  ResponseOutputText,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { ApiError } from '../../../common/api-error';
import type { TokenLogprob } from '../../../engine/types';
import { type McpItem, replayHostedItem, replayMcpItem } from '../../hosted';
import { newId } from '../../http/ids';
import type { ResponseObject } from '../request/response-object';
import type { IdPrefix } from '../request/run-options';
import { asClientCallItem, emitClientCall } from '../run/client-call-events';
import { ResponseRun, type StreamEvent } from '../run/response-run';

/**
 * The stream of a stored response that kept no event log (a direct stream, a JSON answer), built
 * from the response itself by the same {@link ResponseRun} that streams live responses: so the
 * events come in the order a live stream sends them, with the stored ids, and the terminal event
 * carries the stored response. Each content part comes as one delta.
 *
 * @example
 * const events = rebuildEvents(stored.response); // response.created … response.completed
 */
export function rebuildEvents(stored: ResponseObject): StreamEvent[] {
  const events: StreamEvent[] = [];
  const shell: ResponseObject = {
    ...structuredClone(stored),
    // As it was when created: background responses start `queued`.
    status: stored.background ? 'queued' : 'in_progress',
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
    completed_at: null,
  };
  const reasoning = stored.output.filter((o): o is ResponseReasoningItem => o.type === 'reasoning');
  const run = new ResponseRun(shell, (e) => events.push(e), {
    // A live run applies these to every item alike, so the stored items say what was asked for.
    logprobs: stored.output.some(
      (o) => o.type === 'message' && o.content.some((c) => c.type === 'output_text' && c.logprobs?.length),
    ),
    summary: Boolean(stored.reasoning?.summary),
    encryptedContent: reasoning.some((r) => r.encrypted_content),
    newId: storedIds(stored.output),
    now: () => (stored.completed_at ?? 0) * 1000,
  });
  run.start();
  for (const item of stored.output) replayItem(run, item);
  const usage = stored.usage && {
    input_tokens: stored.usage.input_tokens,
    output_tokens: stored.usage.output_tokens,
    reasoning_tokens: stored.usage.output_tokens_details?.reasoning_tokens ?? 0,
  };
  switch (stored.status) {
    case 'completed':
    case 'incomplete':
      run.finish(stored.status === 'incomplete' ? 'length' : 'stop', usage ?? zeroUsage());
      break;
    case 'failed': {
      // One that failed or was stopped after its output was done (at its conversation append) has usage.
      if (usage) run.close('stop', usage);
      const { code = null, message = '' } = stored.error ?? {};
      run.fail(new ApiError(500, 'server_error', code, null, message));
      break;
    }
    case 'cancelled':
      if (usage) run.close('stop', usage);
      run.cancel();
      break;
    default:
    // Still queued or in progress with no live run here: there is no end to tell yet.
  }
  return events;
}

/**
 * The event that ends a stream of `response` in its final state, numbered `sequenceNumber`; null
 * while it is not final. For a stored event log that stops short of one (its runner died, or a
 * write of its last batch failed).
 *
 * @example
 * const last = terminalEvent(stored.response, log.at(-1).sequence_number + 1);
 */
export function terminalEvent(response: ResponseObject, sequenceNumber: number): StreamEvent | null {
  const type = {
    completed: 'response.completed',
    incomplete: 'response.incomplete',
    cancelled: 'response.incomplete',
    failed: 'response.failed',
  }[response.status as string];
  if (!type) return null;
  return { type, response: structuredClone(response), sequence_number: sequenceNumber } as StreamEvent;
}

function replayItem(run: ResponseRun, item: ResponseOutputItem): void {
  const client = asClientCallItem(item);
  if (client) {
    // Client tools' calls (issue 45) go out as stored: their ids and namespace are in the item.
    const out = run.hostedOutput();
    emitClientCall(client, out.addItem, out.send);
    return;
  }
  switch (item.type) {
    case 'reasoning':
      run.push({ type: 'reasoning', delta: item.content?.map((c) => c.text).join('') ?? '' });
      return;
    case 'message':
      for (const part of (item as ResponseOutputMessage).content) {
        if (part.type === 'output_text') replayText(run, part);
        else run.push({ type: 'refusal', delta: part.refusal });
      }
      return;
    case 'function_call':
      run.push({ type: 'tool_call', name: item.name, arguments: item.arguments });
      return;
    case 'custom_tool_call':
      run.customToolCall(item.name, item.input);
      return;
    case 'file_search_call':
    case 'code_interpreter_call':
      replayHostedItem(run.hostedOutput(), item);
      return;
    case 'mcp_list_tools':
    case 'mcp_call':
    case 'mcp_approval_request':
      replayMcpItem(run.hostedOutput(), item as unknown as McpItem);
      return;
    default:
    // intab's runs produce no other output items.
  }
}

/**
 * A text part again, cut at each citation so that its `annotation.added` comes where the live run
 * sent it (at the text's length then, or at the end of the mention it spans). The logprobs ride on the first delta.
 */
function replayText(run: ResponseRun, part: ResponseOutputText): void {
  let at = 0;
  let pushed = false;
  let logprobs = part.logprobs as TokenLogprob[] | undefined;
  const push = (end: number) => {
    run.push({ type: 'text', delta: part.text.slice(at, end), ...(logprobs && { logprobs }) });
    logprobs = undefined;
    pushed = true;
    at = end;
  };
  for (const a of part.annotations) {
    // A file_citation went out when the text reached its index, a container file's once its mention was whole.
    if (a.type !== 'file_citation' && a.type !== 'container_file_citation') continue;
    const end = Math.min(Math.max(a.type === 'file_citation' ? a.index : a.end_index, at), part.text.length);
    if (end > at) push(end);
    run.cite(a.type === 'file_citation' ? { file_id: a.file_id, filename: a.filename } : a);
  }
  if (at < part.text.length || !pushed) push(part.text.length);
}

/** Hands out the stored items' ids in the order a run asks for them (fresh ones past the end). */
function storedIds(output: ResponseOutputItem[]): (prefix: IdPrefix) => string {
  const queues: Record<IdPrefix, string[]> = {
    msg: [],
    rs: [],
    fc: [],
    call: [],
    fs: [],
    sh: [],
    apc: [],
    lsh: [],
    tsc: [],
    ctc: [],
  };
  for (const item of output) {
    if (item.type === 'message') queues.msg.push(item.id);
    else if (item.type === 'reasoning') queues.rs.push(item.id);
    else if (item.type === 'custom_tool_call') {
      if (item.id) queues.ctc.push(item.id);
      queues.call.push(item.call_id);
    } else if (item.type === 'function_call') {
      if (item.id) queues.fc.push(item.id);
      queues.call.push(item.call_id);
    }
  }
  return (prefix) => queues[prefix].shift() ?? newId(prefix);
}

function zeroUsage() {
  return { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0 };
}
