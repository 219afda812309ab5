/**
 * Issue 33 (goldens from llama.cpp's renderer): the wllama goldens of tests/unit/wllama/goldens.test.ts
 * with llama.cpp itself as the reference instead of `@huggingface/jinja`. For every family with a
 * native tool format, over the twelve golden conversations, llama.cpp's rendering (the CI-built
 * `llama-server`'s `/apply-template` with the published template) of the messages and template
 * variables intab hands it must equal llama.cpp's rendering of the same conversation as an OpenAI
 * client sends it (its `tools` field, `reasoning_content`, arguments as JSON text): llama.cpp's own
 * handling around the template (argument objects, reasoning chunks) included, with the family wllama
 * reads from a GGUF carrying the template. Where intab differs on purpose, the difference is asserted
 * by itself, as in the unit goldens; and where llama.cpp's `date_string` (today) replaces the date
 * the published template writes (Llama 3.1's "26 Jul 2024"), intab keeps the published date.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAiTool } from '../../src/engine/tool-formats/shared';
import type { GgufHeader } from '../../src/engine/wllama/gguf-header';
import { ggufFacts } from '../../src/engine/wllama/wllama-instance';
import { goldenCases, wllamaGoldenParams } from '../helpers/golden-plans';
import { clientMessages, type LlamaRenderer, llamaRenderer } from '../helpers/llama-render';
import { LLAMA_BUILD_MS } from '../helpers/llama-server';
import {
  CHOICE_CONVERSATIONS,
  CONVERSATIONS,
  type GoldenConversation,
  goldenTools,
  LLAMA_CPP_CONVERSATIONS,
} from '../unit/webllm/golden-conversations';
import { NATIVE, type NativeGolden } from '../unit/webllm/golden-families';
import { WLLAMA_DIFFERENCES, WLLAMA_ONLY } from '../unit/wllama/golden-differences';

/** Template variables a golden sets that llama.cpp takes from the model (its BOS and EOS) are left to it. */
function kwargsOf(golden: NativeGolden): Record<string, unknown> {
  const { eos_token: _eos, bos_token: _bos, ...rest } = golden.extra ?? {};
  return rest;
}

function published(
  r: LlamaRenderer,
  golden: NativeGolden,
  conversation: GoldenConversation,
): Promise<string> {
  const kwargs = {
    ...(conversation.effort === 'none' ? { enable_thinking: false } : {}),
    ...kwargsOf(golden),
  };
  return r.render({
    messages: clientMessages(conversation.messages, golden.callId),
    ...(conversation.tools ? { tools: goldenTools(conversation).map(openAiTool) } : {}),
    // llama.cpp reads the string choices; a named one (OpenAI's object) it takes as `auto`.
    ...(typeof conversation.toolChoice === 'string' ? { tool_choice: conversation.toolChoice } : {}),
    ...(Object.keys(kwargs).length > 0 ? { chat_template_kwargs: kwargs } : {}),
  });
}

async function intab(
  r: LlamaRenderer,
  golden: NativeGolden,
  conversation: GoldenConversation,
): Promise<string> {
  const params = await wllamaGoldenParams(golden, conversation, ggufFamily(golden));
  const kwargs = { ...params.chat_template_kwargs, ...kwargsOf(golden) };
  return r.render({
    messages: params.messages,
    ...(Object.keys(kwargs).length > 0 ? { chat_template_kwargs: kwargs } : {}),
  });
}

/** The family wllama reads from a GGUF carrying the golden's published template. */
function ggufFamily(golden: NativeGolden) {
  const source = readFileSync(
    new URL(`../fixtures/templates/${golden.template}.jinja`, import.meta.url),
    'utf8',
  );
  const metadata = new Map<string, unknown>([
    ['general.name', golden.model],
    ['tokenizer.chat_template', source],
  ]);
  return ggufFacts({ metadata } as GgufHeader, golden.model).family;
}

/**
 * The date a published template writes when the caller sets none (Meta's Llama 3.1 template:
 * `{%- if not date_string is defined %}{%- set date_string = "26 Jul 2024" %}`).
 */
const PUBLISHED_DATE: Record<string, string> = { 'meta-llama-Llama-3.1-8B-Instruct': '26 Jul 2024' };

/** llama.cpp sets `date_string` to today's date; the published rendering keeps the template's literal. */
function todayToPublished(golden: NativeGolden, prompt: string): string {
  const date = PUBLISHED_DATE[golden.template];
  return date ? prompt.replace(/Today Date: \d\d \w{3} \d{4}/, `Today Date: ${date}`) : prompt;
}

/** The unit goldens' conversations, and those llama.cpp alone renders as a client's Python would. */
const ALL_CONVERSATIONS = { ...CONVERSATIONS, ...CHOICE_CONVERSATIONS, ...LLAMA_CPP_CONVERSATIONS };

describe.each([...NATIVE, ...WLLAMA_ONLY])(
  '$model: llama.cpp renders intab’s inputs as a client’s',
  (golden) => {
    let r: LlamaRenderer;
    beforeAll(async () => {
      r = await llamaRenderer({ template: golden.template });
    }, LLAMA_BUILD_MS);
    afterAll(() => r?.stop());
    const { alike, differing } = goldenCases(golden, WLLAMA_DIFFERENCES, ALL_CONVERSATIONS);
    it.each(alike)('%s', async (_name, conversation) => {
      const expected = await published(r, golden, conversation);
      expect(await intab(r, golden, conversation)).toBe(todayToPublished(golden, expected));
    });
    if (differing.length > 0)
      it.each(differing)('%s', async (_name, conversation, d) => {
        const prompt = await intab(r, golden, conversation);
        if (d.refused) {
          await expect(published(r, golden, conversation)).rejects.toThrow();
          expect(prompt).toContain(d.intab);
          return;
        }
        const expected = todayToPublished(golden, await published(r, golden, conversation));
        expect(expected.split(d.template ?? '').length, 'the template renders it once').toBe(2);
        expect(prompt).toBe(expected.replace(d.template ?? '', d.intab ?? ''));
      });
  },
);
