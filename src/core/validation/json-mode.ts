/**
 * OpenAI's rule for JSON mode: the input must ask for JSON. A model held to JSON by a grammar but
 * never told so writes whitespace until its token limit (web-llm's docs warn of exactly that).
 */

import { invalidRequest } from '../../common/api-error';
import type { ChatMessage } from '../../engine/types';

/**
 * Throws OpenAI's 400 when the format is `json_object` and no message (instructions included)
 * mentions JSON, worded as each API words it: `text.format` and `input` for Responses,
 * `response_format` and `messages` for Chat Completions.
 *
 * @example
 * requireJsonMention([{ role: 'user', content: 'Reply in JSON' }], { type: 'json_object' }); // ok
 * requireJsonMention([{ role: 'user', content: 'hi' }], { type: 'json_object' }, 'chat'); // 400 on 'messages'
 */
export function requireJsonMention(
  messages: ChatMessage[],
  format: { type: string },
  api: 'responses' | 'chat' = 'responses',
): void {
  if (format.type !== 'json_object') return;
  const said = messages.some((m) =>
    typeof m.content === 'string'
      ? /json/i.test(m.content)
      : (m.content ?? []).some((p) => p.type === 'text' && /json/i.test(p.text)),
  );
  if (said) return;
  if (api === 'chat') {
    throw invalidRequest(
      'messages',
      "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
    );
  }
  throw invalidRequest(
    'input',
    "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
  );
}
