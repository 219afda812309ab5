import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { type ApiError, clip, serverError } from '../../common/api-error';
import type { OutputFormatSpec } from '../../engine/types';
import { checkJsonSchema, SchemaCheckLimitError } from './json-schema-check';

/**
 * With a strict `json_schema` format OpenAI guarantees that the text matches the schema. A local
 * model under a grammar should too; when it does not (a grammar gap, a model gone wrong), the
 * response fails with a `server_error` rather than handing the app JSON it was promised never to get.
 * Returns that error, or null when the output is fine or nothing is promised.
 *
 * @example
 * const problem = strictOutputError(req.format, run.response);
 * if (problem) throw problem;
 */
export function strictOutputError(
  format: OutputFormatSpec,
  response: { output: ResponseOutputItem[] },
): ApiError | null {
  const texts = response.output.flatMap((item) =>
    item.type === 'message' ? item.content.flatMap((p) => (p.type === 'output_text' ? [p.text] : [])) : [],
  );
  return strictTextError(format, texts.length === 0 ? null : texts.join(''));
}

/**
 * {@link strictOutputError} for a reply's text alone (a chat completion's `message.content`); null
 * text (a refusal or tool calls instead) promises nothing about the schema.
 *
 * @example
 * const problem = strictTextError(req.format, completion.choices[0].message.content);
 */
export function strictTextError(format: OutputFormatSpec, text: string | null): ApiError | null {
  if (format.type !== 'json_schema' || !format.strict) return null;
  // A refusal or a tool call instead of text promises nothing about the schema.
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return mismatch(format.name, 'the text is not valid JSON');
  }
  try {
    const problem = checkJsonSchema(format.schema, value);
    return problem ? mismatch(format.name, problem) : null;
  } catch (err) {
    if (!(err instanceof SchemaCheckLimitError)) throw err;
    return serverError(
      `The model's output could not be checked against the strict JSON schema '${clip(format.name, 64)}': ${err.message}. Simplify the schema.`,
    );
  }
}

function mismatch(name: string, problem: string): ApiError {
  return serverError(
    `The model's output does not match the strict JSON schema '${clip(name, 64)}' (${problem}). This is a model or grammar failure; retrying may help.`,
  );
}
