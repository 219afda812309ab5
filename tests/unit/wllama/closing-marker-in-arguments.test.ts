/**
 * Issue 33 §4 on the llama.cpp engine, at its boundary with llama.cpp (a fake `Wllama` writing the
 * reply a character per token): a Qwen2.5 GGUF's python call whose code holds `</tool_call>` comes
 * back as one call, its code streamed whole, and not as text. (The reply assemblers of every
 * family concerned: tests/unit/webllm/closing-marker-in-arguments.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { generateRequest } from '../../helpers/generate-request';
import { ggufBytes } from '../../helpers/tiny-gguf';
import { PYTHON_TOOL as python } from '../../helpers/tool-specs';
import { fakeWllamaEngine, runEngine } from '../../helpers/wllama-engine-rig';
import { PassFake } from '../../helpers/wllama-fakes';

/** Enough of Qwen2.5's template for the engine to know the family (its fingerprint). */
const QWEN25_TEMPLATE = '{{ "<|im_start|>" }}{# <tool_call> #}';

describe('wllama: a </tool_call> inside a string argument', () => {
  it('keeps the call whole (Qwen2.5 GGUF)', async () => {
    const code = 'print("</tool_call>")\n# </tool_call>';
    const reply = `<tool_call>\n{"name": "python", "arguments": ${JSON.stringify({ code })}}\n</tool_call>`;
    const gguf = new Blob([
      ggufBytes([
        ['general.architecture', 'qwen2'],
        ['tokenizer.ggml.model', 'gpt2'],
        ['tokenizer.chat_template', QWEN25_TEMPLATE],
        ['tokenizer.ggml.tokens', ['a', 'Ġb']],
      ]),
    ]);
    const fake = new PassFake([reply]);
    const { engine } = fakeWllamaEngine({
      models: [{ id: 'Qwen2.5-test', files: [gguf] }],
      createWllama: () => fake,
    });
    const chunks = await runEngine(
      engine,
      generateRequest({
        model: 'Qwen2.5-test',
        tools: [python],
        messages: [{ role: 'user', content: 'Run it' }],
      }),
    );
    // The grammar llama.cpp got holds the call to one JSON value before its closing marker.
    expect(String(fake.calls[0]?.params.grammar)).toContain('<tool_call>');
    expect(chunks.filter((c) => c.type === 'tool_call')).toEqual([
      { type: 'tool_call', name: 'python', arguments: JSON.stringify({ code }) },
    ]);
    expect(chunks.filter((c) => c.type === 'text')).toEqual([]);
    const deltas = chunks.flatMap((c) => (c.type === 'tool_call_delta' ? [c.arguments_delta] : []));
    expect(JSON.parse(deltas.join(''))).toEqual({ code });
    expect(chunks.find((c) => c.type === 'done')).toMatchObject({ finishReason: 'tool_calls' });
  });
});
