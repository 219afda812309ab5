/**
 * Validates wire objects against the Open Responses OpenAPI spec (vendored in spec/), so tests check
 * every JSON body and SSE event the runtime produces against an independent description of the API.
 * Where the spec and the `openai` types disagree, the types win: such differences are listed in
 * {@link SPEC_OVERRIDES} with the reason.
 *
 * @example
 * expect(validateResponse(body)).toEqual([]);
 * for (const e of events) expect(validateStreamEvent(e)).toEqual([]);
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** The vendored copy (spec/README.md says where it comes from); the repository needs nothing beside it. */
const SPEC_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../../spec/openresponses.openapi.json');

// biome-ignore lint/suspicious/noExplicitAny: the spec is untyped JSON
type Json = any;
const spec: Json = JSON.parse(readFileSync(SPEC_PATH, 'utf8'));

/**
 * Spec schemas loosened where OpenAI's own types (the reference) allow more than the spec does.
 * Each entry: schema name → mutation, with why.
 */
export const SPEC_OVERRIDES: Record<string, (s: Json) => void> = {
  // The spec types an echoed json_schema format's `schema` as null; the types (and OpenAI) send the object.
  JsonSchemaResponseFormat: (s) => {
    s.properties.schema = { type: 'object' };
  },
  // The types also allow `minimal` and `max` reasoning effort.
  ReasoningEffortEnum: (s) => {
    s.enum.push('minimal', 'max');
  },
  // The spec names reasoning text events `response.reasoning.*`; the types say `response.reasoning_text.*`.
  ResponseReasoningDeltaStreamingEvent: (s) => {
    s.properties.type.enum.push('response.reasoning_text.delta');
  },
  ResponseReasoningDoneStreamingEvent: (s) => {
    s.properties.type.enum.push('response.reasoning_text.done');
  },
};

for (const [name, mutate] of Object.entries(SPEC_OVERRIDES)) mutate(spec.components.schemas[name]);

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats.default ? addFormats.default(ajv) : (addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ $id: 'spec', components: spec.components });

const compiled = new Map<string, ValidateFunction>();
function validator(schemaName: string): ValidateFunction {
  let v = compiled.get(schemaName);
  if (!v) {
    if (!spec.components.schemas[schemaName]) throw new Error(`No schema '${schemaName}' in the spec`);
    v = ajv.compile({ $ref: `spec#/components/schemas/${schemaName}` });
    compiled.set(schemaName, v);
  }
  return v;
}

function check(schemaName: string, value: unknown): string[] {
  const v = validator(schemaName);
  if (v(value)) return [];
  return (v.errors ?? []).map(
    (e) => `${schemaName}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`,
  );
}

/** Validates a response object (`object: 'response'`) against `ResponseResource`. */
export function validateResponse(value: unknown): string[] {
  return check('ResponseResource', value);
}

/** Event type → spec schema name, from the `text/event-stream` oneOf of POST /responses. */
const eventSchemas: Map<string, string> = (() => {
  const m = new Map<string, string>();
  const oneOf: Json[] =
    spec.paths['/responses'].post.responses['200'].content['text/event-stream'].schema.oneOf;
  for (const ref of oneOf) {
    const name = String(ref.$ref).split('/').pop() as string;
    for (const type of spec.components.schemas[name]?.properties?.type?.enum ?? []) m.set(type, name);
  }
  return m;
})();

/** Validates one SSE event's JSON payload against the schema for its `type`. */
export function validateStreamEvent(value: unknown): string[] {
  const type = (value as { type?: unknown })?.type;
  if (typeof type !== 'string') return ['event has no type'];
  const name = eventSchemas.get(type);
  if (!name) return [`no spec schema for event type '${type}'`];
  return check(name, value);
}

/** Validates an OpenAI-shaped error body `{"error":{message,type,param,code}}`. */
export function validateErrorBody(value: unknown): string[] {
  const e = (value as { error?: Record<string, unknown> })?.error;
  if (!e || typeof e !== 'object') return ['no error object'];
  const errs: string[] = [];
  if (typeof e.message !== 'string' || !e.message) errs.push('error.message must be a non-empty string');
  if (typeof e.type !== 'string') errs.push('error.type must be a string');
  if (!('param' in e) || (e.param !== null && typeof e.param !== 'string'))
    errs.push('error.param must be string|null');
  if (!('code' in e) || (e.code !== null && typeof e.code !== 'string'))
    errs.push('error.code must be string|null');
  return errs;
}

/** The event types the spec knows, for coverage assertions. */
export const specEventTypes = (): string[] => [...eventSchemas.keys()];
