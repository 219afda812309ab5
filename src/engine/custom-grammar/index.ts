/**
 * `custom` tool grammars (issue 45): a `regex` or `lark` definition as the whole-input pattern the
 * engines hold a custom call's `input` to. One linear converter per syntax, with the bounds of
 * limits.ts, in a chunk of their own (converters.ts) that the first request declaring a custom tool
 * loads.
 */
export {
  CUSTOM_INPUT,
  type CustomFormat,
  customArguments,
  customInput,
  customPattern,
  customSpec,
} from './custom-spec';
export {
  CustomGrammarError,
  MAX_DEFINITION_CHARS,
  MAX_INPUT_PATTERN,
  MAX_LARK_RULES,
  MAX_REPEAT,
} from './limits';
export { converters, loadCustomGrammars, loadCustomGrammarsFor } from './load-converters';
