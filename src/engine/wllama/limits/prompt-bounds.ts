/**
 * What the llama.cpp engine can tell about a prompt's size without running it: an upper bound on
 * its tokens, an estimate before the model is loaded, and how long its first token may take.
 */
import type { ChatMessage, FunctionToolSpec } from '../../types';
import type { TemplateMessage } from '../template-messages';

/** Prompt tokens llama.cpp reads per step (`n_batch` in loadParams). */
export const PROMPT_BATCH = 512;
/**
 * The most the first token may take, however long the prompt, by default (ms): 5 minutes. Each
 * batch is allowed a stall bound, and a prompt of a 128k context is 256 batches, which would let a
 * stuck instance hold every tab for hours.
 */
export const DEFAULT_MAX_FIRST_TOKEN_MS = 300_000;
/** Template markup per message (role headers, separators) and for the whole prompt, in tokens. */
const MARKUP_PER_MESSAGE = 16;
/** Room for text a chat template adds itself (a default system prompt, Llama 3.1's date header). */
const TEMPLATE_SLACK = 128;
/** The usual ratio of English text and JSON for BPE vocabularies (the estimate before a load). */
const CHARS_PER_TOKEN = 4;
/** Template markup per message in the estimate (`<|start_header_id|>role<|end_header_id|>\n\n…<|eot_id|>`). */
const TOKENS_PER_MESSAGE = 5;

/**
 * How many times a template may write the JSON of its variables (the tool list), counted indented
 * by four as Meta's `tojson(indent=4)` writes it: NousResearch's tool_use template writes each
 * tool's description twice (once in its signature line) beside its parameters' JSON, and each
 * parameter's description twice.
 */
const VARIABLE_REPEATS = 3;

/**
 * At least as many tokens as `messages` take once templated: bytes plus markup (every token of a
 * byte-level or byte-fallback vocabulary holds at least one byte), with the calls and reasoning the
 * template writes from the messages and the tool list it writes from its variables (`kwargs`).
 *
 * @example
 * byteBound([{ role: 'user', content: 'hi' }]); // 146
 */
export function byteBound(
  messages: TemplateMessage[],
  kwargs: Record<string, unknown> | null = null,
): number {
  const encoder = new TextEncoder();
  let n = TEMPLATE_SLACK;
  for (const m of messages) {
    n += encoder.encode(m.content).length + MARKUP_PER_MESSAGE;
    if (m.role !== 'assistant') continue;
    if (m.reasoning_content) n += encoder.encode(m.reasoning_content).length;
    // A call's JSON, as the template writes it (with spaces after `:` and `,`: at most twice the bytes).
    if (m.tool_calls) n += 2 * encoder.encode(JSON.stringify(m.tool_calls)).length;
  }
  if (kwargs) n += VARIABLE_REPEATS * encoder.encode(JSON.stringify(kwargs, null, 4)).length;
  return n;
}

/**
 * At most as many tokens as `messages` take once templated, from their size alone: no token of the
 * vocabulary holds more than `maxTokenBytes` bytes (the longest token as the GGUF spells it, which is
 * never shorter than the bytes it stands for: SentencePiece's `▁` is 3 bytes for a space, GPT-2's
 * byte alphabet 2 for a byte, a byte-fallback `<0x41>` 6 for one), so each message's text needs at
 * least its bytes over that many tokens. Each text is trimmed first, as templates that `| trim` do.
 * Linear in the input and no engine call: an input that cannot fit is refused before llama.cpp
 * tokenizes it (10 MB to a 2048-token model took over 5 s to tokenize, holding the engine; issue 43).
 * Zero when the vocabulary is unknown.
 *
 * @example
 * tokenFloor([{ role: 'user', content: 'x'.repeat(100_000) }], 16); // 6250
 */
export function tokenFloor(messages: TemplateMessage[], maxTokenBytes: number | null): number {
  if (!maxTokenBytes || maxTokenBytes < 1) return 0;
  let n = 0;
  for (const m of messages) n += Math.ceil(utf8Length(m.content.trim()) / maxTokenBytes);
  return n;
}

/**
 * The UTF-8 length of `text` without encoding it (a lone surrogate counts 3, as TextEncoder writes
 * U+FFFD for it).
 *
 * @example
 * utf8Length('é▁'); // 5
 */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/**
 * The bytes of the vocabulary's longest token as the GGUF spells it (see {@link tokenFloor}); null
 * for an empty vocabulary. Linear: a token is measured only when its length could beat the best.
 *
 * @example
 * longestTokenBytes(['a', 'Ġhello']); // 7
 */
export function longestTokenBytes(vocab: readonly string[]): number | null {
  let best = 0;
  for (const t of vocab) if (t.length * 3 > best) best = Math.max(best, utf8Length(t));
  return best > 0 ? best : null;
}

/**
 * How long the first token may take: one stall bound per prompt batch llama.cpp must read first
 * (nothing arrives meanwhile), at least one stall bound, at most `maxMs`.
 *
 * @example
 * firstTokenBoundMs(byteBound(messages), 60_000, 300_000); // 60 000 for a short prompt
 */
export function firstTokenBoundMs(promptTokens: number, stallMs: number, maxMs: number): number {
  const batches = Math.max(1, Math.ceil(promptTokens / PROMPT_BATCH));
  return Math.max(stallMs, Math.min(stallMs * batches, maxMs));
}

/**
 * The token count of a prompt before its model is loaded: characters over four, plus markup.
 *
 * @example
 * estimateTokens([{ role: 'user', content: 'Hello there' }], []); // 13
 */
export function estimateTokens(messages: ChatMessage[], tools: FunctionToolSpec[]): number {
  let chars = tools.length > 0 ? JSON.stringify(tools).length : 0;
  for (const m of messages) {
    if (typeof m.content === 'string') chars += m.content.length;
    else if (Array.isArray(m.content))
      for (const p of m.content) if (p.type === 'text') chars += p.text.length;
    if (m.role === 'assistant' && m.tool_calls) chars += JSON.stringify(m.tool_calls).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * (messages.length + 1);
}
