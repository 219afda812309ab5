import type { LoadProgress } from '../../engine/types';

/**
 * The one SSE encoder. Frames carry an `event:` line equal to the payload's `type`, as OpenAI's do.
 * Event names come from our own code, but a newline in one would split the frame, so it is rejected.
 *
 * @example
 * encodeSseEvent({ type: 'response.created', sequence_number: 0, response }) // → 'event: response.created\ndata: {…}\n\n'
 */
export function encodeSseEvent(event: { type: string }): string {
  if (/[\r\n]/.test(event.type)) throw new Error(`Invalid SSE event name: ${JSON.stringify(event.type)}`);
  // JSON.stringify never emits raw newlines, so one `data:` line always suffices.
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * A line of SSE that is not an event: parsers skip comments (the openai SDK's, the AI SDK's,
 * `EventSource`), so intab uses them for what OpenAI's events have no place for, e.g. load progress.
 */
export interface SseComment {
  comment: string;
}

/**
 * Encodes an SSE comment frame. A newline would end the comment and start a field, so it is rejected.
 *
 * @example
 * encodeSseComment('intab.load {"progress":0.5,"text":"Fetching"}') // → ': intab.load {…}\n\n'
 */
export function encodeSseComment(text: string): string {
  if (/[\r\n]/.test(text)) throw new Error(`Invalid SSE comment: ${JSON.stringify(text)}`);
  return `: ${text}\n\n`;
}

/**
 * A frame with a `data:` line only, as Chat Completions streams are sent: no `event:` line, the
 * JSON chunk as data, and the stream's last frame `data: [DONE]`.
 */
export interface SseData {
  data: object | '[DONE]';
}

/**
 * Encodes a data-only frame: an object as its JSON, the string `[DONE]` as it is.
 *
 * @example
 * encodeSseData({ object: 'chat.completion.chunk', … }) // → 'data: {"object":"chat.completion.chunk",…}\n\n'
 * encodeSseData('[DONE]')                              // → 'data: [DONE]\n\n'
 */
export function encodeSseData(data: SseData['data']): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** Anything an SSE body writes: an OpenAI event (`event:` + `data:`), a data-only frame, or a comment. */
export type SseFrame = { type: string } | SseData | SseComment;

/**
 * Encodes any {@link SseFrame}.
 *
 * @example
 * encodeSseFrame({ comment: 'intab.load {"progress":1}' }) // → ': intab.load {"progress":1}\n\n'
 */
export function encodeSseFrame(frame: SseFrame): string {
  if ('comment' in frame) return encodeSseComment(frame.comment);
  if ('type' in frame) return encodeSseEvent(frame);
  return encodeSseData(frame.data);
}

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};

/**
 * A load progress report as an SSE comment, `: intab.load {"progress":0.42,"text":"…"}`. OpenAI's
 * stream has no event for it, and SSE parsers skip comments, so SDKs see OpenAI's events only.
 *
 * @example
 * queue.push(loadComment({ progress: 0.42, text: 'Fetching param cache[3/10]' }));
 */
export function loadComment(p: LoadProgress): SseComment {
  return { comment: `intab.load ${JSON.stringify({ progress: p.progress, text: p.text })}` };
}
