/**
 * Issue 44 item 1 on wllama: a family whose reply may open with a think block (Ministral 3
 * Reasoning's `[THINK]`, Gemma 4's `<|channel>thought`) had `root ::= think? (calls | prose)` with a
 * prose rule that could itself open the block, so prose covered the block and every call after it:
 * `[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": 12, …}` was accepted and read as a call.
 * The block's opening is now the think rule's alone; prose refuses it as it refuses a call opening.
 */
import { describe, expect, it } from 'vitest';
import { familyOf } from '../../../src/engine/tool-formats';
import type { EngineChunk, FunctionToolSpec, GenerateRequest } from '../../../src/engine/types';
import { ReplyAssembler } from '../../../src/engine/webllm/webllm-reply';
import { planWllamaRequest } from '../../../src/engine/wllama/wllama-request';
import { callsOf, reasoningOf, textOf } from '../../helpers/engine-chunks';
import { gbnfMatches } from '../../helpers/gbnf-match';
import { generateRequest } from '../../helpers/generate-request';

const MINISTRAL = 'Ministral-3-3B-Reasoning-2512';
const GEMMA4 = 'gemma-4-E2B-it';

const weather: FunctionToolSpec = {
  name: 'get_weather',
  parameters: {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
    additionalProperties: false,
  },
  strict: true,
};
const runCode: FunctionToolSpec = {
  name: 'run_code',
  parameters: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
  strict: true,
};

const plan = (model: string, over: Partial<GenerateRequest> = {}) =>
  planWllamaRequest(generateRequest({ model, tools: [weather, runCode], toolChoice: 'auto', ...over }), {
    family: familyOf(model),
    invalidUtf8: [],
  });

async function grammarOf(model: string, over: Partial<GenerateRequest> = {}): Promise<string> {
  return (await plan(model, over)).params.grammar as string;
}

async function read(model: string, reply: string): Promise<EngineChunk[]> {
  const r = new ReplyAssembler((await plan(model)).reply);
  const out: EngineChunk[] = [];
  for (const ch of reply) out.push(...r.push(ch));
  out.push(...r.finish('stop', { prompt_tokens: 1, completion_tokens: 1 }));
  return out;
}

describe('an optional think block is the think rule alone under auto (issue 44 item 1)', () => {
  const good = '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris", "days": 3}';

  it('Ministral 3: a call after [THINK]…[/THINK] is held to its schema', async () => {
    const g = await grammarOf(MINISTRAL);
    expect(gbnfMatches(g, '[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": 12, "days": "x"}')).toBe(
      false,
    );
    expect(gbnfMatches(g, '[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": 12, "bogus": [')).toBe(
      false,
    );
    // The same call without the block was already refused.
    expect(gbnfMatches(g, '[TOOL_CALLS]get_weather[ARGS]{"city": 12, "days": "x"}')).toBe(false);
    // Whitespace first does not make the block prose either (the reader trims it off).
    expect(gbnfMatches(g, '\n[THINK]hm[/THINK][TOOL_CALLS]get_weather[ARGS]{"city": 12}')).toBe(false);
  });

  it('Ministral 3: the block then a call, prose or nothing else stays possible', async () => {
    const g = await grammarOf(MINISTRAL);
    expect(gbnfMatches(g, `[THINK]hm[/THINK]${good}`)).toBe(true);
    expect(gbnfMatches(g, '[THINK]hm[/THINK][TOOL_CALLS]run_code[ARGS]{"code": "1+1"}')).toBe(true);
    expect(gbnfMatches(g, '[THINK]It is a greeting.[/THINK]Hello!')).toBe(true);
    expect(gbnfMatches(g, good)).toBe(true);
    expect(gbnfMatches(g, 'Hello!')).toBe(true);
    // Prose that opens like the block but is not it ("[THIN", "[Th…") stays prose.
    expect(gbnfMatches(g, '[Thing] one')).toBe(true);
    expect(gbnfMatches(g, '[THIN')).toBe(true);
  });

  it('Ministral 3: what the grammar holds is read as reasoning and a call', async () => {
    const chunks = await read(MINISTRAL, `[THINK]hm[/THINK]${good}`);
    expect(reasoningOf(chunks)).toBe('hm');
    expect(callsOf(chunks)).toEqual([{ name: 'get_weather', arguments: '{"city":"Paris","days":3}' }]);
    expect(textOf(chunks)).toBe('');
  });

  it("Gemma 4's optional thought channel has the same guard", async () => {
    const g = await grammarOf(GEMMA4);
    const bad = '<tool_call>\n{"name": "get_weather", "arguments": {"city": 12, "days": "x"}}\n</tool_call>';
    const ok =
      '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}\n</tool_call>';
    expect(gbnfMatches(g, `<|channel>thought hm<channel|>${bad}`)).toBe(false);
    expect(gbnfMatches(g, `<|channel>thought hm<channel|>${ok}`)).toBe(true);
    expect(gbnfMatches(g, '<|channel>thought hm<channel|>Hello!')).toBe(true);
    expect(gbnfMatches(g, '<b>bold</b>')).toBe(true);
  });
});
