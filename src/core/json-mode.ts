/**
 * OpenAI's rule for JSON mode: the input must ask for JSON. A model held to JSON by a grammar but
 * never told so writes whitespace until its token limit (web-llm's docs warn of exactly that).
 */
import type { ChatMessage } from '../engine/types';
import { invalidRequest } from './api-error';

/**
 * Throws OpenAI's 400 when `text.format` is `json_object` and no message (instructions included)
 * mentions JSON.
 *
 * @example
 * requireJsonMention([{ role: 'user', content: 'Reply in JSON' }], { type: 'json_object' }); // ok
 */
export function requireJsonMention(messages: ChatMessage[], format: { type: string }): void {
  if (format.type !== 'json_object') return;
  const said = messages.some((m) =>
    typeof m.content === 'string'
      ? /json/i.test(m.content)
      : (m.content ?? []).some((p) => p.type === 'text' && /json/i.test(p.text)),
  );
  if (!said) {
    throw invalidRequest(
      'input',
      "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
    );
  }
}
