/**
 * The real `@mlc-ai/web-xgrammar` (the version web-llm 0.2.86 bundles) in Node: its WASM runs on
 * the CPU, so every grammar and structural tag intab sends web-llm can be compiled and matched here.
 */
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { llama3Tokenizer, type RealTokenizer } from './tokenizers';

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

type ResponseFormatLike = { type?: string; schema?: string; grammar?: string; structural_tag?: unknown };
type Compiler = Awaited<ReturnType<XGrammar['GrammarCompiler']['createGrammarCompiler']>>;
type Compiled = Awaited<ReturnType<Compiler['compileGrammar']>>;

const compilers = new Map<RealTokenizer, Promise<Compiler>>();

/**
 * A `GrammarCompiler` over `tokenizer`'s real vocabulary, built as web-llm builds it (its
 * `token_postproc_method`: byte-level BPE unless the tokenizer says SentencePiece's byte fallback;
 * no prepended space), once per tokenizer.
 */
function compilerFor(tokenizer: RealTokenizer): Promise<Compiler> {
  let compiler = compilers.get(tokenizer);
  if (!compiler) {
    compiler = (async () => {
      const { GrammarCompiler, TokenizerInfo } = await xgrammar();
      const info = await TokenizerInfo.createTokenizerInfo(
        tokenizer.vocab,
        tokenizer.postproc ?? 'byte_level',
        false,
        tokenizer.vocab.length,
        tokenizer.stopIds,
      );
      return GrammarCompiler.createGrammarCompiler(info);
    })();
    compilers.set(tokenizer, compiler);
  }
  return compiler;
}

/** web-llm's `LLMChatPipeline` compilation of a `response_format`. */
async function compile(format: ResponseFormatLike, tokenizer: RealTokenizer): Promise<Compiled> {
  const compiler = await compilerFor(tokenizer);
  if (format.type === 'json_object')
    return format.schema === undefined
      ? compiler.compileBuiltinJSONGrammar()
      : compiler.compileJSONSchema(format.schema);
  if (format.type === 'grammar') return compiler.compileGrammar(format.grammar as string);
  return compiler.compileStructuralTag(format.structural_tag as never);
}

/**
 * Compiles a `response_format` exactly as web-llm's `LLMChatPipeline` does (a `GrammarCompiler` over
 * the model's real vocabulary: Llama 3's unless told), so an invalid one throws.
 *
 * @example
 * await compileResponseFormat({ type: 'json_object', schema: '{"type":"object"}' });
 */
export async function compileResponseFormat(
  format: ResponseFormatLike,
  tokenizer: RealTokenizer = llama3Tokenizer(),
): Promise<void> {
  (await compile(format, tokenizer)).dispose();
}

export interface TokenRun {
  /** How many of the ids the grammar accepted before refusing one (all of them when none was refused). */
  accepted: number;
  /** Every id was accepted, then the tokenizer's stop token, and the grammar ended there. */
  complete: boolean;
}

/**
 * Feeds the real token ids of `text` to a `GrammarMatcher` compiled from `format` over `tokenizer`'s
 * vocabulary, one token at a time as web-llm's sampler does (each id must be in the mask the
 * grammar allows), then the stop token.
 *
 * @example
 * await matchTokens(format, qwen3(), '<tool_call>\n{…}\n</tool_call>'); // { accepted: 17, complete: true }
 */
export async function matchTokens(
  format: ResponseFormatLike,
  tokenizer: RealTokenizer,
  text: string,
): Promise<TokenRun> {
  const { GrammarMatcher } = await xgrammar();
  const compiled = await compile(format, tokenizer);
  const matcher = await GrammarMatcher.createGrammarMatcher(compiled, tokenizer.stopIds);
  try {
    const ids = tokenizer.encode(text);
    let accepted = 0;
    for (const id of ids) {
      if (!matcher.acceptToken(id)) return { accepted, complete: false };
      accepted++;
    }
    const stop = tokenizer.stopIds[0] as number;
    return { accepted, complete: matcher.acceptToken(stop) && matcher.isTerminated() };
  } finally {
    matcher.dispose();
    compiled.dispose();
  }
}

/**
 * Whether a web-llm `response_format` (`grammar`, `structural_tag`, or `json_object` with its
 * schema, compiled with xgrammar's defaults as web-llm compiles it) accepts `text` as a whole reply.
 *
 * @example
 * await responseFormatAccepts({ type: 'grammar', grammar: 'root ::= "a"' }, 'a'); // true
 */
export async function responseFormatAccepts(format: ResponseFormatLike, text: string): Promise<boolean> {
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
