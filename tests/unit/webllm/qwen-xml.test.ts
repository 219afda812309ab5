/**
 * Qwen3.5's XML tool calls: parameter values are written bare, so only the tool's schema says what
 * type each one is (Qwen's own parser converts by the declared type). A tool whose schema lists no
 * properties still takes whatever arguments its schema allows.
 */
import { describe, expect, it } from 'vitest';
import { CallStream } from '../../../src/engine/tool-formats/call-stream';
import { familyOf } from '../../../src/engine/tool-formats/model-family';
import type { FunctionToolSpec } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import { request } from '../../helpers/webllm-fakes';
import { structuralTagAccepts } from '../../helpers/xgrammar';

const MODEL = 'Qwen3.5-0.8B-q4f16_1-MLC';
const format = familyOf(MODEL).tools;

const address: FunctionToolSpec = {
  name: 'find',
  description: null,
  parameters: {
    type: 'object',
    properties: {
      zip: { type: 'string' },
      count: { type: 'integer' },
      exact: { type: 'boolean' },
      near: { type: 'array', items: { type: 'string' } },
      note: { type: ['string', 'null'] },
    },
    required: ['zip'],
  },
  strict: null,
};
const open: FunctionToolSpec = {
  name: 'log',
  description: null,
  parameters: { type: 'object' },
  strict: null,
};
const closed: FunctionToolSpec = {
  name: 'ping',
  description: null,
  parameters: { type: 'object', properties: {}, additionalProperties: false },
  strict: true,
};

const param = (k: string, v: string) => `<parameter=${k}>\n${v}\n</parameter>\n`;
const call = (name: string, params: string) =>
  `<tool_call>\n<function=${name}>\n${params}</function>\n</tool_call>`;

function parse(tools: FunctionToolSpec[], text: string) {
  const stream = new CallStream(format, tools);
  const pieces = [...stream.push(text), ...stream.finish()];
  return pieces.flatMap((p) => (p.type === 'calls' ? p.calls : []));
}

describe('Qwen3.5 XML calls are typed by the tool’s schema', () => {
  it('keeps a string that looks like a number a string, and converts declared numbers and booleans', () => {
    const text = call(
      'find',
      param('zip', '75001') +
        param('count', '3') +
        param('exact', 'true') +
        param('near', '["Lyon"]') +
        param('note', 'null'),
    );
    expect(parse([address], text)).toEqual([
      { name: 'find', arguments: '{"zip":"75001","count":3,"exact":true,"near":["Lyon"],"note":null}' },
    ]);
  });

  it('a schema with no properties takes the arguments it allows, by grammar and parser', async () => {
    const text = call('log', param('level', 'warn') + param('times', '2'));
    expect(parse([open], text)).toEqual([{ name: 'log', arguments: '{"level":"warn","times":2}' }]);
    const { body } = planChatRequest(
      request({ model: MODEL, tools: [open, closed], reasoningEffort: 'none' }),
      {
        vision: false,
      },
    );
    const tag = body.response_format?.type === 'structural_tag' ? body.response_format.structural_tag : null;
    const think = 'Logging.\n</think>\n\n';
    expect(await structuralTagAccepts(tag, think + text)).toBe(true);
    expect(await structuralTagAccepts(tag, `${think}${call('ping', '')}`)).toBe(true);
    expect(await structuralTagAccepts(tag, `${think}${call('ping', param('x', '1'))}`)).toBe(false);
  });
});
