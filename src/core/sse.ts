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

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
};
