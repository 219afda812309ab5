/**
 * What the golden tests share (tests/unit/{webllm,wllama}/goldens.test.ts and their llama.cpp
 * counterparts in tests/integration): the conversations a family is checked on, split into those
 * intab renders as the template does and those where it differs on purpose; and the requests intab
 * plans for a golden conversation on each engine.
 */

import type { ModelFamily } from '../../src/engine/tool-formats';
import { planChatRequest } from '../../src/engine/webllm/webllm-request';
import { planWllamaRequest } from '../../src/engine/wllama/wllama-request';
import {
  CHOICE_CONVERSATIONS,
  CONVERSATIONS,
  type GoldenConversation,
  goldenTools,
} from '../unit/webllm/golden-conversations';
import type { Difference, NativeGolden } from '../unit/webllm/golden-families';
import { generateRequest } from './generate-request';
import { request } from './webllm-fakes';
import { webllmPrompt } from './webllm-prompt';

/** A day other than Llama 3.1's literal default, so that a date taken from the wrong place shows. */
const NOW = new Date(Date.UTC(2025, 2, 14, 12));

/**
 * The golden conversations `golden` is checked on (of `conversations`, those with tools only, for a tools-only
 * template): `alike` as `[name, conversation]`, `differing` as `[name: why, conversation, difference]`
 * for those `differences` names for its model.
 */
export function goldenCases(
  golden: NativeGolden,
  differences: readonly Difference[],
  conversations: Record<string, GoldenConversation> = { ...CONVERSATIONS, ...CHOICE_CONVERSATIONS },
) {
  const cases = Object.entries(conversations).filter(([, c]) => c.tools || !golden.toolsOnly);
  const differs = (name: string) =>
    differences.find((d) => d.model.test(golden.model) && d.conversations.includes(name));
  return {
    alike: cases.filter(([name]) => !differs(name)),
    differing: cases.flatMap(([name, c]) => {
      const d = differs(name);
      return d ? [[`${name}: ${d.why}`, c, d] as const] : [];
    }),
  };
}

/** The prompt web-llm builds from the request intab plans for the conversation. */
export async function webllmGoldenPrompt(
  golden: NativeGolden,
  conversation: GoldenConversation,
): Promise<string> {
  const { body } = planChatRequest(
    request({
      model: golden.model,
      messages: conversation.messages,
      tools: goldenTools(conversation),
      toolChoice: conversation.toolChoice ?? 'auto',
      reasoningEffort: conversation.effort ?? null,
    }),
    { vision: false },
    { now: NOW },
  );
  return webllmPrompt(golden.conv, body);
}

/** The llama.cpp parameters intab plans for the conversation on wllama, for a model of `family`. */
export async function wllamaGoldenParams(
  golden: NativeGolden,
  conversation: GoldenConversation,
  family: ModelFamily,
) {
  const { params } = await planWllamaRequest(
    generateRequest({
      model: golden.model,
      messages: conversation.messages,
      tools: goldenTools(conversation),
      toolChoice: conversation.toolChoice ?? 'auto',
      reasoningEffort: conversation.effort ?? null,
    }),
    { family, invalidUtf8: [] },
  );
  return params;
}
