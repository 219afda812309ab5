/**
 * The conversations the goldens render through web-llm and through each family's published template:
 * the first five (plain turns, tools, one tool round trip) and the seven of issue 28's review
 * (parallel calls, prose and a call in one turn, a tool loop then another user turn, typed arguments
 * with a non-JSON result, reasoning inside a tool loop, effort `none`, trailing whitespace); and
 * issue 44's tool choices after a call, which the template renders with every tool declared.
 */
import type { ChatMessage, FunctionToolSpec, ToolChoiceSpec } from '../../../src/engine/types';
import { weather } from './families';

export interface GoldenConversation {
  messages: ChatMessage[];
  /** get_weather is offered. */
  tools: boolean;
  /** run_code is offered too, after get_weather. */
  runCode?: boolean;
  /** The request's `tool_choice` (absent: `auto`); the template renders every tool whatever it is. */
  toolChoice?: ToolChoiceSpec;
  /** `reasoning.effort`; the template renders with `enable_thinking: false` for 'none'. */
  effort?: 'none';
}

/**
 * get_weather with typed, described parameters: NousResearch's template trims each parameter's
 * description (which @huggingface/jinja requires), and the typed-arguments case needs an integer.
 */
export const described: FunctionToolSpec = {
  ...weather,
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'The city name. ' },
      unit: { type: 'string', enum: ['c', 'f'], description: 'Celsius or Fahrenheit.' },
      days: { type: 'integer', description: 'Days ahead.' },
    },
    required: ['city'],
  },
};

const call = (id: string, args: Record<string, unknown>) => ({
  id,
  type: 'function' as const,
  function: { name: 'get_weather', arguments: JSON.stringify(args) },
});
const result = (id: string, content: string): ChatMessage => ({
  role: 'tool',
  tool_call_id: id,
  name: 'get_weather',
  content,
});
const SYSTEM: ChatMessage = { role: 'system', content: 'You are terse.' };
const ASK: ChatMessage = { role: 'user', content: 'Weather in Paris?' };

export const CONVERSATIONS: Record<string, GoldenConversation> = {
  'one user turn': { messages: [{ role: 'user', content: 'Hi' }], tools: false },
  'system and user': { messages: [SYSTEM, { role: 'user', content: 'Hi' }], tools: false },
  'several turns': {
    messages: [
      SYSTEM,
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Weather?' },
    ],
    tools: false,
  },
  'tools, no system': { messages: [ASK], tools: true },
  'tools and tool history': {
    messages: [
      SYSTEM,
      ASK,
      { role: 'assistant', content: null, tool_calls: [call('call_1', { city: 'Paris' })] },
      result('call_1', '{"temp": 21}'),
    ],
    tools: true,
  },
  'parallel calls': {
    messages: [
      SYSTEM,
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_1', { city: 'Paris' }), call('call_2', { city: 'Rome' })],
      },
      result('call_1', '{"temp": 21}'),
      result('call_2', '{"temp": 25}'),
    ],
    tools: true,
  },
  'prose and a call in one turn': {
    messages: [
      SYSTEM,
      ASK,
      { role: 'assistant', content: 'Let me check.', tool_calls: [call('call_1', { city: 'Paris' })] },
      result('call_1', '{"temp": 21}'),
    ],
    tools: true,
  },
  'a tool loop, then another user turn': {
    messages: [
      SYSTEM,
      ASK,
      { role: 'assistant', content: null, tool_calls: [call('call_1', { city: 'Paris' })] },
      result('call_1', '{"temp": 21}'),
      { role: 'assistant', content: 'It is 21 degrees.' },
      { role: 'user', content: 'And in Rome?' },
    ],
    tools: true,
  },
  'typed arguments, a result that is not JSON': {
    messages: [
      ASK,
      {
        role: 'assistant',
        content: null,
        tool_calls: [call('call_1', { city: 'Paris', unit: 'c', days: 3 })],
      },
      result('call_1', 'Sunny, 21 C'),
    ],
    tools: true,
  },
  'reasoning inside a tool loop': {
    messages: [
      SYSTEM,
      ASK,
      {
        role: 'assistant',
        content: null,
        reasoning: 'The user wants Paris.',
        tool_calls: [call('call_1', { city: 'Paris' })],
      },
      result('call_1', '{"temp": 21}'),
    ],
    tools: true,
  },
  'effort none': { messages: [SYSTEM, ASK], tools: true, effort: 'none' },
  'trailing whitespace': {
    messages: [
      { role: 'system', content: '  You are terse. \n' },
      { role: 'user', content: 'Hi \n' },
      { role: 'assistant', content: 'Hello. ' },
      { role: 'user', content: ' Weather in Paris?\n\n' },
    ],
    tools: true,
  },
};

/**
 * Conversations only the goldens against llama.cpp render (tests/integration): `@huggingface/jinja`,
 * the unit goldens' reference, writes numbers as JavaScript does, where llama.cpp's Jinja (and
 * Python's) write `1e+20` and `1e-07`. The arguments are the client's text, as it sent them.
 */
export const LLAMA_CPP_CONVERSATIONS: Record<string, GoldenConversation> = {
  'arguments whose numbers JavaScript spells otherwise': {
    messages: [
      ASK,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"big": 1e20, "small": 1e-7, "f": 1.0, "n": 1e16}' },
          },
        ],
      },
      result('call_1', '{"temp": 21}'),
    ],
    tools: true,
  },
};

/** The second tool of the tool-choice conversations, which the history never called. */
export const runCode: FunctionToolSpec = {
  name: 'run_code',
  description: 'Run Python code.',
  parameters: {
    type: 'object',
    properties: { code: { type: 'string', description: 'The source.' } },
    required: ['code'],
  },
  strict: true,
};

/** The tools a golden conversation's request declares. */
export function goldenTools(conversation: GoldenConversation): FunctionToolSpec[] {
  if (!conversation.tools) return [];
  return conversation.runCode ? [described, runCode] : [described];
}

/**
 * Issue 44, item 4: each choice after a get_weather round trip, both tools declared. llama.cpp
 * renders every declared tool for every choice (the choice is its grammar's), so a prompt that
 * dropped them (`none`) or kept only the named one (run_code, never called) differs.
 */
export const CHOICE_CONVERSATIONS: Record<string, GoldenConversation> = Object.fromEntries(
  (
    [
      ['tool_choice none after a call', 'none'],
      ['tool_choice required after a call', 'required'],
      ['a named tool after another tool’s call', { name: 'run_code' }],
    ] as const
  ).map(([name, toolChoice]) => [
    name,
    {
      messages: CONVERSATIONS['tools and tool history']?.messages ?? [],
      tools: true,
      runCode: true,
      toolChoice,
    },
  ]),
);
