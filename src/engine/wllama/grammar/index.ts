/**
 * llama.cpp grammars (GBNF) for the wllama engine: JSON Schema and regex patterns as GBNF, the one
 * grammar of a request, and the bounds that keep every grammar within what llama.cpp accepts.
 *
 * @example
 * import { requestGrammarPaced } from './grammar';
 */

export { preflightGrammar } from './grammar-preflight';
export { jsonSchemaToGbnf } from './json-schema-gbnf';
export { wllamaCallOpenings } from './prose-gbnf';
export { GrammarError, requestGrammarPaced } from './request-grammar';
