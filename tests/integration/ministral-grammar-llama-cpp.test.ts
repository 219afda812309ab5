/**
 * Issue 44: a Ministral 3 reasoning-then-calls case sampled by real llama.cpp. The CI-built
 * `llama-server` samples the tiny GGUF under the grammar intab's wllama engine builds for Ministral 3
 * Reasoning (`tool_choice: required`, parallel calls on, two strict tools), so llama.cpp's own grammar
 * sampler meets it token by token (Llama 3 tokens such as `"}` or `[/` that span the grammar's
 * boundaries). Every reply must be one the grammar accepts, read as reasoning and calls only, each
 * call's arguments valid by its schema, consecutive calls back to back as the published template
 * writes them (`[TOOL_CALLS]a[ARGS]{…}[TOOL_CALLS]b[ARGS]{…}`: item 2; the grammar put a newline
 * there before); and some replies think first, then call.
 *
 * The tiny model's weights are random: left alone it rarely opens a think block, or closes one or a
 * string before the token budget. A fixed logit bias on `TH` (after `[`: the block rather than a
 * call) and on the tokens that close things (`[/`, `",`, `"}`, `}`, a digit) lets replies end; it
 * only reweighs what the grammar allows at each step, never widens it.
 */
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familyOf } from '../../src/engine/tool-formats';
import { ministralFormat } from '../../src/engine/tool-formats/ministral';
import type { EngineChunk, FunctionToolSpec } from '../../src/engine/types';
import { ReplyAssembler } from '../../src/engine/webllm/webllm-reply';
import { planWllamaRequest, type WllamaPlan } from '../../src/engine/wllama/wllama-request';
import { callsOf, reasoningOf, textOf } from '../helpers/engine-chunks';
import { gbnfMatches } from '../helpers/gbnf-match';
import { generateRequest } from '../helpers/generate-request';
import { LLAMA_BUILD_MS, type LlamaServer, postJson, startLlamaServer } from '../helpers/llama-server';

const MODEL = 'Ministral-3-3B-Reasoning-2512';
const TOOLS: FunctionToolSpec[] = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
      additionalProperties: false,
    },
    strict: true,
  },
  {
    name: 'run_code',
    parameters: {
      type: 'object',
      properties: { code: { type: 'string' } },
      required: ['code'],
      additionalProperties: false,
    },
    strict: true,
  },
];
const SEEDS = 24;
const MAX_TOKENS = 160;
/** Each closing token's bias (a single token of the tiny GGUF's Llama 3 vocabulary). */
const CLOSERS: Array<[string, number]> = [
  ['TH', 10],
  ['[/', 12],
  ['",', 12],
  ['"}', 12],
  ['}', 12],
  ['3', 12],
];

interface Sample {
  seed: number;
  content: string;
  complete: boolean;
  chunks: EngineChunk[];
}

let server: LlamaServer;
beforeAll(async () => {
  server = await startLlamaServer();
}, LLAMA_BUILD_MS);
afterAll(() => server?.stop());

const post = <T>(path: string, body: Record<string, unknown>) => postJson<T>(server, path, body);

async function tokenId(piece: string): Promise<number> {
  const { tokens } = await post<{ tokens: number[] }>('/tokenize', { content: piece });
  if (tokens.length !== 1) throw new Error(`${JSON.stringify(piece)} is ${tokens.length} tokens`);
  return tokens[0] as number;
}

async function sample(plan: WllamaPlan, seed: number, bias: Array<[number, number]>): Promise<Sample> {
  const out = await post<{ content: string; stop_type: string }>('/completion', {
    prompt: '[INST]What is the weather in Paris and Rome?[/INST]',
    grammar: plan.params.grammar,
    seed,
    n_predict: MAX_TOKENS,
    temperature: 1,
    logit_bias: bias,
  });
  const complete = out.stop_type === 'eos';
  const reader = new ReplyAssembler(plan.reply);
  const chunks = [
    ...reader.push(out.content),
    ...reader.finish(complete ? 'stop' : 'length', { prompt_tokens: 1, completion_tokens: 1 }),
  ];
  return { seed, content: out.content, complete, chunks };
}

/** What a reply writes between one call and the next, after its think block and its whitespace. */
function gapsBetweenCalls(content: string): string[] {
  const close = '[/THINK]';
  let rest = content.startsWith('[THINK]') ? content.slice(content.indexOf(close) + close.length) : content;
  rest = rest.trimStart();
  const gaps: string[] = [];
  for (;;) {
    const end = ministralFormat.regionEnd(rest);
    if (end < 0) return gaps;
    rest = rest.slice(end);
    if (rest === '') return gaps;
    const next = rest.indexOf('[TOOL_CALLS]');
    gaps.push(next < 0 ? rest : rest.slice(0, next));
    if (next < 0) return gaps;
    rest = rest.slice(next);
  }
}

describe('Ministral 3 on wllama: llama.cpp samples think-then-calls within the grammar (issue 44)', () => {
  it('every reply is reasoning and valid calls, back to back; some think first', async () => {
    const request = generateRequest({
      model: MODEL,
      tools: TOOLS,
      toolChoice: 'required',
      parallelToolCalls: true,
    });
    const plan = await planWllamaRequest(request, { family: familyOf(MODEL), invalidUtf8: [] });
    const grammar = plan.params.grammar as string;
    const bias: Array<[number, number]> = [];
    for (const [piece, weight] of CLOSERS) bias.push([await tokenId(piece), weight]);
    const ajv = new Ajv({ strict: false });
    const validators = new Map(TOOLS.map((t) => [t.name, ajv.compile(t.parameters ?? {})]));

    const samples: Sample[] = [];
    for (let seed = 1; seed <= SEEDS; seed++) samples.push(await sample(plan, seed, bias));
    for (const s of samples) {
      const where = `seed ${s.seed}: ${JSON.stringify(s.content)}`;
      for (const call of callsOf(s.chunks)) {
        const valid = validators.get(call.name);
        expect(valid, where).toBeDefined();
        expect(valid?.(JSON.parse(call.arguments)), `${where}\n${JSON.stringify(valid?.errors)}`).toBe(true);
      }
      if (!s.complete) continue;
      // A finished reply is one the grammar accepts, read whole as reasoning and calls.
      expect(gbnfMatches(grammar, s.content), where).toBe(true);
      expect(callsOf(s.chunks).length, where).toBeGreaterThan(0);
      expect(textOf(s.chunks), where).toBe('');
      expect(gapsBetweenCalls(s.content), where).toEqual(gapsBetweenCalls(s.content).map(() => ''));
    }
    const done = samples.filter((s) => s.complete);
    // The case the issue asks for: reasoning first, then the calls, sampled by llama.cpp.
    expect(
      done.filter((s) => reasoningOf(s.chunks) !== '' && callsOf(s.chunks).length > 0).length,
    ).toBeGreaterThan(0);
    // And parallel calls written back to back.
    expect(done.filter((s) => callsOf(s.chunks).length > 1).length).toBeGreaterThan(0);
  }, 300_000);
});

/**
 * `tool_choice: auto` on the formats whose reader takes a call after text: prose is now an automaton
 * over the call openings (`opening-free-text.ts`), so llama.cpp itself must load it and sample
 * within it. (That text then a call is held to the schema is shown on the grammar by an independent
 * matcher in `tests/unit/wllama/prose-then-call.test.ts`; random weights seldom write the tag.)
 */
describe('wllama auto: llama.cpp loads and samples the prose automaton (issue 44)', () => {
  for (const model of ['Hermes-3-Llama-3.1-8B', 'Ministral-3-3B-Reasoning-2512', 'Phi-4-mini-instruct']) {
    it(`${model}: every reply is read as text or valid calls`, async () => {
      const request = generateRequest({ model, tools: TOOLS, toolChoice: 'auto' });
      const plan = await planWllamaRequest(request, { family: familyOf(model), invalidUtf8: [] });
      const grammar = plan.params.grammar as string;
      expect(grammar).toContain('free-state');
      const ajv = new Ajv({ strict: false });
      const validators = new Map(TOOLS.map((t) => [t.name, ajv.compile(t.parameters ?? {})]));
      for (let seed = 1; seed <= 4; seed++) {
        const s = await sample(plan, seed, []);
        const where = `seed ${seed}: ${JSON.stringify(s.content)}`;
        expect(s.content.length, where).toBeGreaterThan(0);
        for (const call of callsOf(s.chunks)) {
          expect(validators.get(call.name)?.(JSON.parse(call.arguments)), where).toBe(true);
        }
        if (s.complete) expect(gbnfMatches(grammar, s.content), where).toBe(true);
      }
    }, 120_000);
  }
});
