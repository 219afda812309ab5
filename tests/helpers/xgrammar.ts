/**
 * The real `@mlc-ai/web-xgrammar` (the version web-llm 0.2.86 bundles) in Node: its WASM runs on
 * the CPU, so every grammar and structural tag intab sends web-llm can be compiled and matched here.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

type XGrammar = typeof import('@mlc-ai/web-xgrammar');

let loaded: Promise<XGrammar> | null = null;

/**
 * Loads web-xgrammar once. Its UMD build sets `globalThis.xgrammar` and, outside a browser, reads
 * CommonJS's `require` and `__filename`, which an ES module lacks; both are provided first.
 *
 * @example
 * const { Grammar } = await xgrammar();
 */
export function xgrammar(): Promise<XGrammar> {
  loaded ??= (async () => {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@mlc-ai/web-xgrammar');
    const g = globalThis as Record<string, unknown>;
    g.require ??= require;
    g.__filename ??= entry;
    g.__dirname ??= dirname(entry);
    await import('@mlc-ai/web-xgrammar');
    return g.xgrammar as XGrammar;
  })();
  return loaded;
}

/**
 * Whether the structural tag accepts `text` as a whole reply.
 *
 * @example
 * await structuralTagAccepts(tag, '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'); // true
 */
export async function structuralTagAccepts(tag: unknown, text: string): Promise<boolean> {
  const { Grammar, Testings } = await xgrammar();
  const grammar = await Grammar.fromStructuralTag(tag as Record<string, unknown>);
  try {
    return await Testings.isGrammarAcceptString(grammar, text);
  } finally {
    grammar.dispose();
  }
}

/**
 * Compiles a `response_format` exactly as web-llm's `LLMChatPipeline` does (a `GrammarCompiler` over
 * a tokenizer's vocabulary; a small stand-in vocabulary here), so an invalid one throws.
 *
 * @example
 * await compileResponseFormat({ type: 'json_object', schema: '{"type":"object"}' });
 */
export async function compileResponseFormat(format: {
  type?: string;
  schema?: string;
  grammar?: string;
  structural_tag?: unknown;
}): Promise<void> {
  const { GrammarCompiler, TokenizerInfo } = await xgrammar();
  const vocab = [
    '<|end|>',
    ...'{}[]":, \n<>/|_=abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ.-',
  ];
  const info = await TokenizerInfo.createTokenizerInfo(vocab, 'raw', false, vocab.length, [0]);
  const compiler = await GrammarCompiler.createGrammarCompiler(info);
  try {
    const compiled =
      format.type === 'json_object'
        ? format.schema === undefined
          ? await compiler.compileBuiltinJSONGrammar()
          : await compiler.compileJSONSchema(format.schema)
        : format.type === 'grammar'
          ? await compiler.compileGrammar(format.grammar as string)
          : await compiler.compileStructuralTag(format.structural_tag as never);
    compiled.dispose();
  } finally {
    compiler.dispose();
    info.dispose();
  }
}

/**
 * Whether a web-llm `response_format` (`grammar`, `structural_tag`, or `json_object` with its
 * schema, compiled with xgrammar's defaults as web-llm compiles it) accepts `text` as a whole reply.
 *
 * @example
 * await responseFormatAccepts({ type: 'grammar', grammar: 'root ::= "a"' }, 'a'); // true
 */
export async function responseFormatAccepts(
  format: { type?: string; schema?: string; grammar?: string; structural_tag?: unknown },
  text: string,
): Promise<boolean> {
  const { Grammar, Testings } = await xgrammar();
  const grammar =
    format.type === 'grammar'
      ? await Grammar.fromEBNF(format.grammar as string)
      : format.type === 'structural_tag'
        ? await Grammar.fromStructuralTag(format.structural_tag as Record<string, unknown>)
        : await Grammar.fromJSONSchema(format.schema ?? '{"type": "object"}');
  try {
    return await Testings.isGrammarAcceptString(grammar, text);
  } finally {
    grammar.dispose();
  }
}
