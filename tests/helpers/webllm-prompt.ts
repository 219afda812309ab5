/**
 * web-llm's own prompt builder, for tests: the `Conversation` that turns a chat-completion request
 * into the text the model reads. web-llm exports no way to reach it, so a copy of its bundle with
 * two more exports is written next to it and imported (its bundle has no imports of its own).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatCompletionRequest } from '@mlc-ai/web-llm';
import { convConfigFor } from '../../src/engine/webllm/webllm-conv-templates';
import templates from '../fixtures/webllm/conv-templates.json';

interface Conversation {
  appendReplyHeader(role: string): void;
  finishReply(message: string): void;
  appendEmptyThinkingReplyHeader(role: string, block: string): void;
  getPromptArray(config?: unknown): Array<string | unknown[]>;
}

interface Internals {
  compareConversationObject(a: Conversation, b: Conversation): boolean;
  getConversationFromChatCompletionRequest(
    request: ChatCompletionRequest,
    config: { conv_template: unknown; conv_config: unknown },
    includeLastMsg: boolean,
  ): Conversation;
}

export type ConvTemplateName = keyof typeof templates;

let internals: Promise<Internals> | null = null;

function load(): Promise<Internals> {
  internals ??= (async () => {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@mlc-ai/web-llm');
    const copy = join(dirname(entry), '.intab-test-internals.js');
    const extra = '\nexport { getConversationFromChatCompletionRequest, compareConversationObject };\n';
    writeFileSync(copy, readFileSync(entry, 'utf8') + extra);
    return (await import(pathToFileURL(copy).href)) as Internals;
  })();
  return internals;
}

/**
 * The prompt web-llm would prefill for `request` under the conversation template `name` (from
 * mlc-llm, as the model's mlc-chat-config.json carries it) with the `conv_config` corrections the
 * engine passes to `reload` for `request.model`, ending with the assistant header, as
 * `LLMChatPipeline.prefillStep` builds it. Raw prefix token ids are left out.
 *
 * @example
 * await webllmPrompt('qwen3', body); // '<|im_start|>system\n…<|im_start|>assistant\n'
 */
export async function webllmPrompt(name: ConvTemplateName, request: ChatCompletionRequest): Promise<string> {
  const { getConversationFromChatCompletionRequest } = await load();
  // With the corrections the engine passes to `reload` for this model, as web-llm merges them.
  const conversation = getConversationFromChatCompletionRequest(
    structuredClone(request),
    { conv_template: templates[name], conv_config: convConfigFor(request.model ?? '') ?? {} },
    true,
  );
  if (request.extra_body?.enable_thinking === false)
    conversation.appendEmptyThinkingReplyHeader('assistant', '<think>\n\n</think>\n\n');
  else conversation.appendReplyHeader('assistant');
  return conversation
    .getPromptArray()
    .map((p) => (typeof p === 'string' ? p : p.filter((x) => typeof x === 'string').join('')))
    .join('');
}

/**
 * Whether web-llm would keep its KV cache for `second`: as `preparePrefillInput` decides, the
 * conversation the pipeline holds after answering `first` with `reply` (the decoded output) must
 * equal the one `second` builds from all its messages but the last (`compareConversationObject`).
 *
 * @example
 * await webllmReusesCache('qwen3', first, '<think>\n…</think>\n\n<tool_call>…', second); // true
 */
export async function webllmReusesCache(
  name: ConvTemplateName,
  first: ChatCompletionRequest,
  reply: string,
  second: ChatCompletionRequest,
): Promise<boolean> {
  const { getConversationFromChatCompletionRequest, compareConversationObject } = await load();
  const config = (r: ChatCompletionRequest) => ({
    conv_template: templates[name],
    conv_config: convConfigFor(r.model ?? '') ?? {},
  });
  const held = getConversationFromChatCompletionRequest(structuredClone(first), config(first), true);
  held.appendReplyHeader('assistant');
  held.finishReply(reply);
  const next = getConversationFromChatCompletionRequest(structuredClone(second), config(second), false);
  return compareConversationObject(held, next);
}
