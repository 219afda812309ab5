/**
 * A forced call of one tool, sampled by real llama.cpp (the CI-built `llama-server`, the tiny
 * GGUF's random weights) under the grammar intab's wllama engine builds for it, over many seeds:
 * each finished reply is checked to be one the grammar accepts and one call of that tool, as the
 * family's reader parses it back; its arguments are returned for the test's own checks.
 */
import { expect } from 'vitest';
import { familyOf } from '../../src/engine/tool-formats';
import type { FunctionToolSpec } from '../../src/engine/types';
import { ReplyAssembler } from '../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../src/engine/wllama/wllama-request';
import { callsOf } from './engine-chunks';
import { gbnfMatches } from './gbnf-match';
import { generateRequest } from './generate-request';
import { type LlamaServer, postJson } from './llama-server';

export interface ForcedSampling {
  seeds: number;
  maxTokens: number;
  /** llama-server's `logit_bias`, to steer random weights toward ending within the budget. */
  bias?: Array<[string, number]>;
}

/** One finished reply: where it came from (for failure messages) and the call's arguments. */
export type ForcedCall = { where: string; args: string };

/**
 * The finished replies of `spec`'s forced call on `model`, one per seed that ended within the budget.
 *
 * @example
 * for (const { where, args } of await forcedCalls(server, model, spec, { seeds: 8, maxTokens: 120 })) …
 */
export async function forcedCalls(
  server: LlamaServer,
  model: string,
  spec: FunctionToolSpec,
  { seeds, maxTokens, bias }: ForcedSampling,
): Promise<ForcedCall[]> {
  const request = generateRequest({
    model,
    tools: [spec],
    toolChoice: { name: spec.name },
    parallelToolCalls: false,
    reasoningEffort: 'none',
  });
  const plan = await planWllamaRequest(request, { family: familyOf(model), invalidUtf8: [] });
  const grammar = plan.params.grammar as string;
  const out: ForcedCall[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    const reply = await postJson<{ content: string; stop_type: string }>(server, '/completion', {
      prompt: 'Call the tool.',
      grammar,
      seed,
      n_predict: maxTokens,
      temperature: 1,
      ...(bias && { logit_bias: bias }),
    });
    if (reply.stop_type !== 'eos') continue;
    const where = `seed ${seed}: ${JSON.stringify(reply.content)}`;
    expect(gbnfMatches(grammar, reply.content), where).toBe(true);
    const reader = new ReplyAssembler(plan.reply);
    const calls = callsOf([
      ...reader.push(reply.content),
      ...reader.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }),
    ]);
    expect(
      calls.map((c) => c.name),
      where,
    ).toEqual([spec.name]);
    out.push({ where, args: (calls[0] as { arguments: string }).arguments });
  }
  return out;
}
