import { invalidRequest } from '../../../common/api-error';
import { INCLUDABLE } from './create-schema';

/** `include` values intab can honour; the others name hosted tools that do not exist offline. */
const SUPPORTED_INCLUDES = new Set([
  'message.output_text.logprobs',
  'reasoning.encrypted_content',
  // Input images keep their URLs anyway: there is nothing to leave out.
  'message.input_image.image_url',
  // file_search runs locally; its results ride on the file_search_call item only when asked for.
  'file_search_call.results',
  // code_interpreter runs locally too (a Pyodide sandbox); its logs and images, only when asked for.
  'code_interpreter_call.outputs',
]);

/**
 * Checks `include` values, from a create body or from a GET's `include`/`include[]` query: unknown
 * values are a 400 `invalid_value`, hosted-tool values a 400 `unsupported_value`, naming `include[i]`.
 *
 * @example
 * checkIncludes(['message.output_text.logprobs']) // → Set { 'message.output_text.logprobs' }
 */
export function checkIncludes(values: readonly string[]): Set<string> {
  values.forEach((value, i) => {
    if (!(INCLUDABLE as readonly string[]).includes(value)) {
      throw invalidRequest(
        `include[${i}]`,
        `Invalid value: '${value}'. Supported values are: ${INCLUDABLE.map((v) => `'${v}'`).join(', ')}.`,
        'invalid_value',
      );
    }
    if (!SUPPORTED_INCLUDES.has(value)) {
      throw invalidRequest(
        `include[${i}]`,
        `Include value '${value}' is not supported by intab: it belongs to a hosted tool that does not run locally. Supported values are: ${[...SUPPORTED_INCLUDES].map((v) => `'${v}'`).join(', ')}.`,
        'unsupported_value',
      );
    }
  });
  return new Set(values);
}

/** The `include` values of a GET's query, written `include=a&include=b` or `include[]=a`. */
export function queryIncludes(url: URL): Set<string> {
  return checkIncludes([...url.searchParams.getAll('include'), ...url.searchParams.getAll('include[]')]);
}
