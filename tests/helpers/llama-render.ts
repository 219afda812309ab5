/**
 * llama.cpp as the reference renderer of chat templates (issue 33): the CI-built `llama-server`
 * runs the same `common/jinja` runtime and chat-params path that wllama's wasm compiles, and Python's
 * string semantics (`strip('\n')` strips newlines only, `true | string` is `True`), where
 * `@huggingface/jinja` differs. `/apply-template` returns the prompt it would generate from.
 *
 * @example
 * const r = await llamaRenderer({ template: 'Qwen-Qwen3-0.6B' });
 * const prompt = await r.render({ messages });
 * await r.stop();
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatMessage } from '../../src/engine/types';
import { type LlamaServerOptions, startLlamaServer } from './llama-server';

export interface LlamaRenderer {
  /** The prompt llama.cpp renders for an OpenAI chat body (messages, tools, chat_template_kwargs…). */
  render(body: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/**
 * A llama-server rendering with a vendored published template (`template`, a file of
 * tests/fixtures/templates without `.jinja`), a template's text (`source`), or the model's own
 * templates (neither).
 */
export async function llamaRenderer(
  opts: { template?: string; source?: string; model?: LlamaServerOptions['model'] } = {},
): Promise<LlamaRenderer> {
  let templateFile: string | undefined;
  if (opts.template)
    templateFile = fileURLToPath(new URL(`../fixtures/templates/${opts.template}.jinja`, import.meta.url));
  else if (opts.source !== undefined) {
    templateFile = join(mkdtempSync(join(tmpdir(), 'intab-template-')), 'template.jinja');
    writeFileSync(templateFile, opts.source);
  }
  const server = await startLlamaServer({
    ...(opts.model ? { model: opts.model } : {}),
    ...(templateFile ? { templateFile } : { jinja: true }),
  });
  return {
    async render(body) {
      const res = await fetch(`${server.origin}/apply-template`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`llama-server /apply-template ${res.status}: ${text}`);
      return (JSON.parse(text) as { prompt: string }).prompt;
    },
    stop: () => server.stop(),
  };
}

/**
 * The conversation as an OpenAI client sends it to llama.cpp: results with their call ids, reasoning
 * as `reasoning_content` (llama.cpp parses call arguments for templates that take objects).
 */
export function clientMessages(messages: ChatMessage[], callId = (id: string) => id): unknown[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', tool_call_id: callId(m.tool_call_id), content: m.content };
    if (m.role !== 'assistant') return m;
    return {
      role: 'assistant',
      content: m.content ?? '',
      ...(m.reasoning ? { reasoning_content: m.reasoning } : {}),
      ...(m.tool_calls ? { tool_calls: m.tool_calls.map((c) => ({ ...c, id: callId(c.id) })) } : {}),
    };
  });
}
