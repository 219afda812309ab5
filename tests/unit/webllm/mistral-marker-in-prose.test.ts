/**
 * Issue 33 §9: Mistral v0.3's template writes a turn's calls as the whole turn (`[TOOL_CALLS] […]`,
 * no text beside them), so a reply is calls from its start or prose. `[TOOL_CALLS] ` met inside
 * prose (a model explaining the format) used to trigger web-llm's grammar, which then forced a call
 * the model never meant; and both engines' parsers read a well-formed list after prose as a call the
 * grammar never held. Now the marker only opens calls at the start of the reply, on both engines:
 * web-llm's structural tag compiled by the real xgrammar, wllama's GBNF by the recognizer.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk } from '../../../src/engine/types';
import { ReplyAssembler, type ReplyOptions } from '../../../src/engine/webllm/webllm-reply';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { requestGrammarPaced } from '../../../src/engine/wllama/grammar/request-grammar';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf, textOf } from '../../helpers/engine-chunks';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';
import { appConfig, collect, request, setup } from '../../helpers/webllm-fakes';
import { structuralTagAccepts } from '../../helpers/xgrammar';
import { clock, weather } from './families';

const MISTRAL = 'Mistral-7B-Instruct-v0.3-q4f16_1-MLC';
const CALL = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]';
const PARIS = { name: 'get_weather', arguments: '{"city":"Paris"}' };
/** Prose that names the marker, with its space, and goes on with words, not a list. */
const EXPLAINED = 'To call a tool I write [TOOL_CALLS] followed by a JSON list of calls.';
/** Prose that shows a whole call: an example, not a call (the grammar never held it). */
const SHOWN = `An example: ${CALL} is how a call looks.`;

function assemble(opts: ReplyOptions, text: string): EngineChunk[] {
  const r = new ReplyAssembler(opts);
  const out: EngineChunk[] = [];
  for (const ch of text) out.push(...r.push(ch));
  out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

describe('web-llm, Mistral v0.3 under auto', () => {
  const plan = () => planChatRequest(request({ model: MISTRAL, tools: [weather, clock] }), { vision: false });
  const tag = () => plan().body.response_format?.structural_tag;

  it('the grammar lets prose name `[TOOL_CALLS] ` and go on, and still takes a call at the start', async () => {
    expect(await structuralTagAccepts(tag(), EXPLAINED)).toBe(true);
    expect(await structuralTagAccepts(tag(), SHOWN)).toBe(true);
    expect(await structuralTagAccepts(tag(), CALL)).toBe(true);
    expect(await structuralTagAccepts(tag(), '[TOOL_CALLS] [{"name": "get_weather", "arguments": {}}]')).toBe(
      false,
    );
  });

  it('the parser reads a call at the start only; the marker in prose stays text', () => {
    for (const prose of [EXPLAINED, SHOWN]) {
      const chunks = assemble(plan().reply, prose);
      expect([textOf(chunks), callsOf(chunks)]).toEqual([prose, []]);
    }
    expect(callsOf(assemble(plan().reply, ` ${CALL}`))).toEqual([PARIS]);
  });

  it('at the MLCEngine boundary: a reply that shows a call in prose is a message, not a call', async () => {
    const { engine, fake } = setup({
      appConfig: {
        model_list: [
          ...appConfig.model_list,
          { model: `https://hf.co/${MISTRAL}`, model_id: MISTRAL, model_lib: 'https://x/m.wasm' },
        ],
      },
    });
    await engine.load(MISTRAL);
    fake().reply = [...SHOWN.matchAll(/[\s\S]{1,5}/g)].map((m) => ({ text: m[0] }));
    const chunks = await collect(
      engine.generate(request({ model: MISTRAL, tools: [weather] }), new AbortController().signal),
    );
    expect([textOf(chunks), callsOf(chunks)]).toEqual([SHOWN, []]);
    expect(chunks.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });
});

describe('wllama, Mistral v0.3 under auto', () => {
  it('the grammar takes the call at the start and prose that names the marker', async () => {
    const g = (await requestGrammarPaced({
      format: familyOf(MISTRAL).tools,
      tools: [weather, clock],
      forced: false,
      parallel: true,
      maxToolCalls: null,
      output: { type: 'text' },
      thinking: null,
    })) as string;
    expect(gbnfMatches(g, CALL)).toBe(true);
    expect(gbnfMatches(g, EXPLAINED)).toBe(true);
    expect(gbnfMatches(g, SHOWN)).toBe(true);
    expect(gbnfMatches(g, '[TOOL_CALLS] and some words')).toBe(false);
  });

  it('the parser reads a call at the start only; a call shown in prose stays text', async () => {
    const { reply } = await planWllamaRequest(generateRequest({ model: MISTRAL, tools: [weather, clock] }), {
      family: familyOf(MISTRAL),
      invalidUtf8: [],
    });
    const shown = assemble(reply, SHOWN);
    expect([textOf(shown), callsOf(shown)]).toEqual([SHOWN, []]);
    expect(callsOf(assemble(reply, CALL))).toEqual([PARIS]);
  });
});
