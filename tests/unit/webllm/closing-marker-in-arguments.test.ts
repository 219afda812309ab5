/**
 * Issue 33 §4: a string argument holding `</tool_call>` (code that prints it, a file that documents
 * the format) keeps its call, in every family that writes `<tool_call>` JSON (Qwen2, Qwen2.5,
 * Qwen2.5-Math, Qwen3, QwQ, Hermes, the R1 distills and the taught families), on both engines'
 * reply plans: the grammar holds a whole JSON value after the opening, so the region ends after it,
 * not at the first `</tool_call>`. The python call's code streams whole too (the live
 * code_interpreter item gets its call). Then the same at web-llm's MLCEngine boundary.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';
import { forcedCallGrammar, PYTHON_TOOL as python } from '../../helpers/tool-specs';
import { collect, QWEN3, request, setup } from '../../helpers/webllm-fakes';
import { structuralTagAccepts } from '../../helpers/xgrammar';

const CODE = 'print("<tool_call>")\nprint("</tool_call>")\n# </tool_call>\n<tool_call>\n{"name": "x"}';
const MODELS = [
  'Qwen2-1.5B-Instruct-q4f16_1-MLC',
  'Qwen2.5-1.5B-Instruct-q4f16_1-MLC',
  'Qwen2.5-Math-1.5B-Instruct-q4f16_1-MLC',
  'Qwen3-0.6B-q4f16_1-MLC',
  'QwQ-32B',
  'Hermes-3-Llama-3.1-8B-q4f16_1-MLC',
  'DeepSeek-R1-Distill-Qwen-7B-q4f16_1-MLC',
  'SmolLM2-1.7B-Instruct-q4f16_1-MLC',
  'gemma-2-2b-it-q4f16_1-MLC',
  'gemma-3-1b-it-q4f16_1-MLC',
  'gemma-4-E2B-it-q4f16_1-MLC',
  'Phi-3.5-mini-instruct-q4f16_1-MLC',
];

/** The reply a family's model writes: its think block if it always thinks, then the call. */
function reply(model: string): string {
  const family = familyOf(model);
  const call = `<tool_call>\n{"name": "python", "arguments": ${JSON.stringify({ code: CODE })}}\n</tool_call>`;
  const r = family.reasoning;
  if (!r || !family.alwaysThinks) return call;
  return `${r.prefilled ? '' : r.open}Plan the code.${r.close}\n\n${call}`;
}

/** The reply pushed three characters at a time through an assembler made from `opts`. */
function assemble(opts: ConstructorParameters<typeof ReplyAssembler>[0], text: string): EngineChunk[] {
  const r = new ReplyAssembler(opts);
  const out: EngineChunk[] = [];
  for (let i = 0; i < text.length; i += 3) out.push(...r.push(text.slice(i, i + 3)));
  out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

function expectOneCall(chunks: EngineChunk[]): void {
  const calls = chunks.filter((c) => c.type === 'tool_call');
  expect(calls).toEqual([{ type: 'tool_call', name: 'python', arguments: JSON.stringify({ code: CODE }) }]);
  expect(chunks.filter((c) => c.type === 'text')).toEqual([]);
  // The code streamed as written, whole: the live code_interpreter item gets it all.
  const deltas = chunks.flatMap((c) => (c.type === 'tool_call_delta' ? [c.arguments_delta] : []));
  expect(JSON.parse(deltas.join(''))).toEqual({ code: CODE });
}

describe('a </tool_call> inside a string argument keeps its call', () => {
  it.each(MODELS)('%s: every family concerned writes <tool_call> JSON', (model) => {
    expect(familyOf(model).tools.triggers).toContain('<tool_call>');
  });

  it.each(MODELS)('%s on web-llm', (model) => {
    const { reply: opts } = planChatRequest(generateRequest({ model, tools: [python] }), { vision: false });
    expectOneCall(assemble(opts, reply(model)));
  });

  it.each(MODELS)('%s on wllama', async (model) => {
    const { reply: opts } = await planWllamaRequest(generateRequest({ model, tools: [python] }), {
      family: familyOf(model),
      invalidUtf8: [],
    });
    expectOneCall(assemble(opts, reply(model)));
  });

  it('a call after it is read too, and prose after both stays prose', () => {
    const model = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';
    const { reply: opts } = planChatRequest(
      generateRequest({ model, tools: [python], parallelToolCalls: true }),
      { vision: false },
    );
    const second = '<tool_call>\n{"name": "python", "arguments": {"code": "1"}}\n</tool_call>';
    const chunks = assemble(opts, `${reply(model)}\n${second}\nDone.`);
    expect(
      chunks.filter((c) => c.type === 'tool_call').map((c) => c.type === 'tool_call' && c.arguments),
    ).toEqual([JSON.stringify({ code: CODE }), '{"code":"1"}']);
    expect(chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('')).toBe('Done.');
  });

  it('a <tool_call> met in prose still ends at its first </tool_call>, and the call after it is read', () => {
    const model = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';
    const { reply: opts } = planChatRequest(generateRequest({ model, tools: [python] }), { vision: false });
    // No openings: every `<tool_call>` opens a region (the format's markers, no grammar to follow).
    const chunks = assemble(
      { ...opts, openings: undefined },
      `Write <tool_call> then </tool_call>. ${reply(model)}`,
    );
    expect(chunks.filter((c) => c.type === 'tool_call')).toHaveLength(1);
    expect(chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('')).toBe(
      'Write <tool_call> then </tool_call>.',
    );
  });
});

describe('both grammars hold such a call whole', () => {
  const model = 'Qwen2.5-1.5B-Instruct-q4f16_1-MLC';

  it('web-llm: the structural tag (real xgrammar) takes it', async () => {
    const { body } = planChatRequest(generateRequest({ model, tools: [python] }), { vision: false });
    expect(await structuralTagAccepts(body.response_format?.structural_tag, reply(model))).toBe(true);
  });

  it('wllama: the GBNF takes it', async () => {
    const g = await forcedCallGrammar(familyOf(model).tools, [python]);
    expect(gbnfMatches(g, reply(model))).toBe(true);
  });
});

describe('web-llm at the MLCEngine boundary', () => {
  it('Qwen3: the python call whose code holds </tool_call> comes back as one call', async () => {
    const { engine, fake } = setup();
    await engine.load(QWEN3);
    const text = reply(QWEN3);
    fake().reply = [...text.matchAll(/[\s\S]{1,7}/g)].map((m) => ({ text: m[0] }));
    const chunks = await collect(
      engine.generate(request({ model: QWEN3, tools: [python] }), new AbortController().signal),
    );
    expectOneCall(chunks);
    expect(chunks.find((c) => c.type === 'done')).toMatchObject({ finishReason: 'tool_calls' });
  });
});
