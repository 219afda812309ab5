/**
 * `custom` tool grammars (issue 45): a `regex` or `lark` definition as the whole-input pattern the
 * engines hold a custom call's `input` to. One linear converter per syntax, with the bounds of
 * limits.ts.
 */
export {
  CUSTOM_INPUT,
  type CustomFormat,
  customArguments,
  customInput,
  customPattern,
  customSpec,
} from './custom-spec';
export { larkInputPattern } from './lark-regex';
export {
  CustomGrammarError,
  MAX_DEFINITION_CHARS,
  MAX_INPUT_PATTERN,
  MAX_LARK_RULES,
  MAX_REPEAT,
} from './limits';
export { regexInputPattern } from './regex-definition';
