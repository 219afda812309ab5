import type { ResponseOutputItem } from 'openai/resources/responses/responses';
import { type ApiError, clip, serverError } from '../../common/api-error';
import { pace } from '../../common/pace';
import type { OutputFormatSpec } from '../../engine/types';
import { lazyModule } from '../http/lazy-module';

/** The schema checker, loaded by the first output a strict `json_schema` format promises (issue 36). */
const schemaCheck = lazyModule('JSON schema check', () => import('./json-schema-check'));

/**
 * With a strict `json_schema` format OpenAI guarantees that the text matches the schema. A local
 * model under a grammar should too; when it does not (a grammar gap, a model gone wrong), the
 * response fails with a `server_error` rather than handing the app JSON it was promised never to get.
 * Resolves with that error, or null when the output is fine or nothing is promised. It runs in slices
 * that yield to the loop (`checkJsonSchemaPaced`), so checking a big output never holds the engine
 * worker for one long step.
 *
 * @example
 * const problem = await strictOutputErrorPaced(req.format, run.response);
 * if (problem) throw problem;
 */
export async function strictOutputErrorPaced(
  format: OutputFormatSpec,
  response: { output: ResponseOutputItem[] },
): Promise<ApiError | null> {
  return strictTextErrorPaced(format, outputText(response));
}

function outputText(response: { output: ResponseOutputItem[] }): string | null {
  const texts = response.output.flatMap((item) =>
    item.type === 'message' ? item.content.flatMap((p) => (p.type === 'output_text' ? [p.text] : [])) : [],
  );
  return texts.length === 0 ? null : texts.join('');
}

/**
 * {@link strictOutputErrorPaced} for a reply's text alone (a chat completion's `message.content`); null
 * text (a refusal or tool calls instead) promises nothing about the schema.
 *
 * @example
 * const problem = await strictTextErrorPaced(req.format, completion.choices[0].message.content);
 */
export async function strictTextErrorPaced(
  format: OutputFormatSpec,
  text: string | null,
): Promise<ApiError | null> {
  const parsed = parseStrict(format, text);
  if (parsed === null || 'error' in parsed) return parsed?.error ?? null;
  // Parsing a megabyte of output is a step of its own: the check starts on a fresh turn if it was long.
  await pace();
  const check = await schemaCheck().catch((err: ApiError) => err);
  if (check instanceof Error) return check;
  try {
    return problemError(parsed.name, await check.checkJsonSchemaPaced(parsed.schema, parsed.value));
  } catch (err) {
    return limitError(parsed.name, err, check.SchemaCheckLimitError);
  }
}

type Parsed = { name: string; schema: unknown; value: unknown } | { error: ApiError } | null;

/** The text's value when a strict format promises it, its error when it is not JSON; null for no promise. */
function parseStrict(format: OutputFormatSpec, text: string | null): Parsed {
  if (format.type !== 'json_schema' || !format.strict) return null;
  // A refusal or a tool call instead of text promises nothing about the schema.
  if (text === null) return null;
  try {
    return { name: format.name, schema: format.schema, value: JSON.parse(text) };
  } catch {
    return { error: mismatch(format.name, 'the text is not valid JSON') };
  }
}

function problemError(name: string, problem: string | null): ApiError | null {
  return problem ? mismatch(name, problem) : null;
}

function limitError(name: string, err: unknown, LimitError: new (...args: never[]) => Error): ApiError {
  if (!(err instanceof LimitError)) throw err;
  return serverError(
    `The model's output could not be checked against the strict JSON schema '${clip(name, 64)}': ${err.message}. Simplify the schema.`,
  );
}

function mismatch(name: string, problem: string): ApiError {
  return serverError(
    `The model's output does not match the strict JSON schema '${clip(name, 64)}' (${problem}). This is a model or grammar failure; retrying may help.`,
  );
}
