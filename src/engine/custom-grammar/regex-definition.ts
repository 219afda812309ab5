/**
 * A `custom` tool's `{type:'grammar', syntax:'regex'}` definition as the whole-input pattern both
 * engines hold the call's `input` to: the tool's input must match the definition entirely, as
 * OpenAI's (LLGuidance's) regex grammars do. Read once by the regex parser JSON Schema patterns use
 * (wllama/grammar/regex-parser.ts), so what that subset cannot express is refused by name.
 */
import { GrammarTooComplexError } from '../wllama/grammar/grammar-budget';
import { type Node, parseRegex, UnsupportedPatternError } from '../wllama/grammar/regex-parser';
import { CustomGrammarError, MAX_DEFINITION_CHARS, MAX_REPEAT } from './limits';

/**
 * The anchored pattern (`^(?:…)$`) for `definition`; a leading `^` and a trailing `$` are taken as
 * the anchors they already are. Throws {@link CustomGrammarError} for what the subset cannot express.
 *
 * @example
 * regexInputPattern('\\d{3}-\\d{4}'); // '^(?:\\d{3}-\\d{4})$'
 */
export function regexInputPattern(definition: string): string {
  if (definition.length > MAX_DEFINITION_CHARS)
    throw new CustomGrammarError(`The regex is longer than ${MAX_DEFINITION_CHARS} characters.`);
  let body = definition;
  if (body.startsWith('^')) body = body.slice(1);
  if (body.endsWith('$') && !escapedAt(body, body.length - 1)) body = body.slice(0, -1);
  checkRegex(body);
  return `^(?:${body})$`;
}

/** Whether the character at `i` is escaped (an odd run of backslashes before it). */
function escapedAt(text: string, i: number): boolean {
  let n = 0;
  while (i - n - 1 >= 0 && text[i - n - 1] === '\\') n++;
  return n % 2 === 1;
}

/**
 * Parses `body` (no anchors left) and checks its repetition bounds, walking the tree once with an
 * explicit stack (the parser bounds its depth). Shared by the Lark converter for `/…/` terminals.
 *
 * @example
 * checkRegex('a{2000}'); // throws: a repetition bound above 1000
 */
export function checkRegex(body: string): Node {
  let tree: Node;
  try {
    tree = parseRegex(body);
  } catch (err) {
    if (err instanceof UnsupportedPatternError || err instanceof GrammarTooComplexError)
      throw new CustomGrammarError(err.message);
    throw err;
  }
  const stack: Node[] = [tree];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.kind === 'start' || n.kind === 'end')
      throw new CustomGrammarError("'^' and '$' are supported only at the ends of the regex.");
    if (n.kind === 'repeat') {
      if (n.min > MAX_REPEAT || (n.max ?? 0) > MAX_REPEAT)
        throw new CustomGrammarError(`A repetition bound above ${MAX_REPEAT} is not supported.`);
      stack.push(n.node);
    } else if (n.kind === 'alt') stack.push(...n.options);
    else if (n.kind === 'seq') stack.push(...n.items);
  }
  return tree;
}
