/**
 * A `custom` tool (issue 45) as the engines see it: a function with one required string parameter
 * `input` whose `pattern` is the tool's converted grammar, so every family shows, constrains and
 * parses it as it does any function; and the call's `input` read back from its arguments. Shared by
 * the Responses API and Chat Completions. The converters are loaded before the parse
 * (load-converters.ts).
 */
import { clip, invalidRequest } from '../../common/api-error';
import type { FunctionToolSpec } from '../types';
import { CustomGrammarError } from './limits';
import { converters } from './load-converters';

/** The one parameter a custom tool's call writes its input into. */
export const CUSTOM_INPUT = 'input';

/** A custom tool's `format`, in the Responses API's shape. */
export type CustomFormat =
  | { type: 'text' }
  | { type: 'grammar'; syntax: 'lark' | 'regex'; definition: string };

/**
 * The pattern a custom tool's `input` must match (null: any text), converted from its grammar;
 * what the subset cannot express is a 400 on `param` naming the construct.
 *
 * @example
 * customPattern({ type: 'grammar', syntax: 'regex', definition: '\\d+' }, 'tools[0].format'); // '^(?:\\d+)$'
 */
export function customPattern(format: CustomFormat | null | undefined, param: string): string | null {
  if (!format || format.type === 'text') return null;
  try {
    const convert = converters();
    return format.syntax === 'regex'
      ? convert.regexInputPattern(format.definition)
      : convert.larkInputPattern(format.definition);
  } catch (err) {
    if (err instanceof CustomGrammarError)
      throw invalidRequest(
        `${param}.definition`,
        `Invalid ${format.syntax} grammar: ${err.message}`,
        'invalid_grammar',
      );
    throw err;
  }
}

/**
 * A custom tool as the engines see it: a strict function whose one required string `input` holds
 * the grammar as its `pattern`. The description says the input is free-form, so a family's prompt
 * tells the model what the tool takes.
 *
 * @example
 * customSpec({ type: 'custom', name: 'sql', format: { type: 'text' } }).parameters;
 * // { type: 'object', properties: { input: { type: 'string' } }, required: ['input'], additionalProperties: false }
 */
export function customSpec(t: {
  name: string;
  description?: string | null;
  format?: CustomFormat | null;
}): FunctionToolSpec {
  const pattern = customPattern(t.format, 'tools');
  const input: Record<string, unknown> = {
    type: 'string',
    description:
      pattern === null
        ? 'The free-form input of this tool.'
        : `The free-form input of this tool, matching the ${(t.format as { syntax: string }).syntax} grammar: ${clip((t.format as { definition: string }).definition, 2000)}`,
    ...(pattern !== null && { pattern }),
  };
  return {
    name: t.name,
    description: t.description ?? null,
    parameters: {
      type: 'object',
      properties: { [CUSTOM_INPUT]: input },
      required: [CUSTOM_INPUT],
      additionalProperties: false,
    },
    strict: true,
  };
}

/**
 * The `input` of a custom call from the arguments the engine parsed (`{"input": "…"}`); arguments
 * of another shape (a model writing free JSON under `auto`) are the input as written.
 *
 * @example
 * customInput('{"input":"SELECT 1"}'); // 'SELECT 1'
 */
export function customInput(args: string): string {
  try {
    const v: unknown = JSON.parse(args);
    if (
      typeof v === 'object' &&
      v !== null &&
      typeof (v as Record<string, unknown>)[CUSTOM_INPUT] === 'string'
    )
      return (v as Record<string, string>)[CUSTOM_INPUT] as string;
  } catch {
    // Not JSON: the text itself is the input.
  }
  return args;
}

/** The arguments a custom call's `input` is shown to the model as, in history. */
export function customArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_INPUT]: input });
}
