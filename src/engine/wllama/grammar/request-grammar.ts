/**
 * The GBNF grammar of one request: tool calls in the family's native markup with arguments held to
 * each tool's schema, a JSON `text.format`, and a free think block ahead of either for models that
 * always think. llama.cpp refuses its own `grammar` beside `tools` and ignores `tool_choice:
 * 'required'`, so intab never passes `tools` and states everything in this one grammar.
 */

import { clip } from '../../../common/api-error';
import type { ReasoningMarkers } from '../../tool-formats/model-family';
import type { TagSpec, ToolFormat } from '../../tool-formats/types';
import type { FunctionToolSpec, OutputFormatSpec } from '../../types';
import { GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';
import { GrammarTooComplexError } from './grammar-budget';
import { JsonSchemaRules, UnsupportedSchemaError } from './json-schema-gbnf';
import { checkLlamaGrammar, LlamaGrammarError } from './llama-limits';

export interface GrammarRequest {
  /** The family's tool format; used only when `tools` is not empty. */
  format: ToolFormat;
  /** The tools the reply may call (the allowed ones; one for a named choice). */
  tools: FunctionToolSpec[];
  /** `required` or a named choice: the reply is calls from its first token (after thinking). */
  forced: boolean;
  parallel: boolean;
  /** `max_tool_calls`; null for no limit. */
  maxToolCalls: number | null;
  output: OutputFormatSpec;
  /** The think block every reply opens with (models that always think), or null. */
  thinking: ReasoningMarkers | null;
}

/** Where a schema the grammar cannot express came from, for the 400's `param`. */
export class GrammarError extends Error {
  override readonly name = 'GrammarError';
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** Most repeated calls spelled out when parallel calls have no `max_tool_calls`. */
const MAX_PARALLEL_CALLS = 16;

/**
 * The grammar for `req`, or null when the reply is free text (no tools, text format). Under `auto`
 * a reply is calls or prose, and prose may not open with a call's first character, so a reply that
 * starts a call must finish it by the tool's schema.
 *
 * @example
 * requestGrammar({ format: llama3Format, tools, forced: true, parallel: false, maxToolCalls: null,
 *   output: { type: 'text' }, thinking: null });
 * // 'root ::= call\ncall ::= "{\\"name\\": \\"get_weather\\", \\"parameters\\": " args-get-weather "}" | …'
 */
export function requestGrammar(req: GrammarRequest): string | null {
  const hasTools = req.tools.length > 0;
  if (!hasTools && req.output.type === 'text') return null;
  const param = req.output.type === 'json_schema' && !hasTools ? 'text.format.schema' : 'tools';
  try {
    const grammar = buildGrammar(req);
    checkLlamaGrammar(grammar);
    return grammar;
  } catch (err) {
    if (err instanceof LlamaGrammarError)
      throw new GrammarError(paramOfRule(err.rule, req) ?? param, err.message);
    if (err instanceof GrammarTooComplexError) throw new GrammarError(param, err.message);
    throw err;
  }
}

/**
 * The param a rule's schema came from, by the prefix its name carries (`tag2-…`: the tool of tag 2,
 * `answer-…`: the text format); null when the name says none.
 */
function paramOfRule(rule: string, req: GrammarRequest): string | null {
  if (rule.startsWith('answer')) return 'text.format.schema';
  const tag = /^tag(\d+)-/.exec(rule);
  if (!tag) return null;
  const begin = req.format.tags(req.tools, req.parallel)[Number(tag[1])]?.begin ?? '';
  const i = req.tools.findIndex((t) => begin.includes(t.name));
  return i >= 0 ? `tools[${i}].parameters` : 'tools';
}

function buildGrammar(req: GrammarRequest): string {
  const hasTools = req.tools.length > 0;
  const g = new GbnfBuilder();
  const root = g.reserve('root');
  const body: string[] = [];
  if (hasTools) body.push(callsRule(g, req));
  if (req.output.type !== 'text' && !(hasTools && req.forced)) body.push(outputRule(g, req.output));
  if (hasTools && !req.forced && req.output.type === 'text') body.push(proseRule(g, req.format));
  const reply = body.length === 1 ? (body[0] as string) : `(${body.join(' | ')})`;
  g.fill(root, req.thinking ? `${thinkRule(g, req.thinking)} ${reply}` : reply);
  return g.toString();
}

/** `call (separator call){0,n}`: one call, or up to `max_tool_calls` when calls may be parallel. */
function callsRule(g: GbnfBuilder, req: GrammarRequest): string {
  const tags = req.format.tags(req.tools, req.parallel);
  const alternatives = tags.map((tag, i) => tagExpression(g, tag, req.tools, i));
  const call = g.add('call', alternatives.join(' | '));
  // Formats that write every call of a turn as one list (Mistral, Phi-4) have one region.
  const oneRegion = tags.every((t) => isListSchema(t.content));
  const limit = req.maxToolCalls ?? MAX_PARALLEL_CALLS;
  if (!req.parallel || oneRegion || limit <= 1) return call;
  // Formats whose calls are the whole reply join them with their own separator (Llama's `; `).
  const sep = req.format.leading ? gbnfLiteral(req.format.leading.separator) : '"\\n"';
  return g.add('calls', `${call} (${sep} ${call}){0,${limit - 1}}`);
}

function isListSchema(content: Record<string, unknown>): boolean {
  const schema = content.json_schema as Record<string, unknown> | undefined;
  return content.type === 'json_schema' && schema?.type === 'array';
}

/** One tag: its literal opening, its content (JSON arguments, a constant, or Qwen's XML), its end. */
function tagExpression(g: GbnfBuilder, tag: TagSpec, tools: FunctionToolSpec[], index: number): string {
  const content = tag.content;
  let inner: string;
  const toolIndex = tools.findIndex((t) => tag.begin.includes(t.name));
  const param = toolIndex >= 0 ? `tools[${toolIndex}].parameters` : 'tools';
  if (content.type === 'json_schema') {
    const schema = content.json_schema as Record<string, unknown>;
    inner = schemaRule(g, schema, `tag${index}-`, param);
  } else if (content.type === 'const_string') {
    inner = gbnfLiteral(String(content.value));
  } else if (content.type === 'qwen_xml_parameter') {
    inner = xmlParameters(g, content.json_schema as Record<string, unknown>, `tag${index}-`, param);
  } else {
    throw new GrammarError('tools', `Tool-call content '${String(content.type)}' has no grammar.`);
  }
  const parts = [tag.begin ? gbnfLiteral(tag.begin) : '', inner, tag.end ? gbnfLiteral(tag.end) : ''];
  return parts.filter(Boolean).join(' ');
}

/** Qwen3.5's `<parameter=name>\nvalue\n</parameter>` list: strings bare, everything else as JSON. */
function xmlParameters(
  g: GbnfBuilder,
  schema: Record<string, unknown>,
  prefix: string,
  param: string,
): string {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rules = new JsonSchemaRules(g, schema, prefix);
  const one = (name: string): string => {
    const p = props[name] as Record<string, unknown>;
    const value =
      p.type === 'string' && !p.enum && !p.pattern
        ? `${gbnfClass([[0x3c, 0x3c]], true)}*`
        : guarded(() => rules.expression(p, `/properties/${name}`), param);
    // One rule per parameter: an optional group counts every rule inside it against llama.cpp's threshold.
    return g.add(
      `${prefix}param`,
      `${gbnfLiteral(`<parameter=${name}>\n`)} ${value} ${gbnfLiteral('\n</parameter>')}`,
    );
  };
  const names = Object.keys(props);
  const items = names.map((n, i) => {
    const sep = i === 0 ? '' : `${gbnfLiteral('\n')} `;
    return required.has(n) ? `${sep}${one(n)}` : `(${sep}${one(n)})?`;
  });
  return items.length === 0 ? '""' : items.join(' ');
}

function schemaRule(g: GbnfBuilder, schema: Record<string, unknown>, prefix: string, param: string): string {
  return guarded(() => new JsonSchemaRules(g, schema, prefix).expression(schema, ''), param);
}

function guarded(build: () => string, param: string): string {
  try {
    return build();
  } catch (err) {
    if (
      err instanceof UnsupportedSchemaError ||
      (err instanceof GrammarTooComplexError && !(err instanceof LlamaGrammarError))
    ) {
      throw new GrammarError(param, `${err.message}${err.path ? ` (at ${clip(err.path, 200)})` : ''}`);
    }
    throw err;
  }
}

/** The JSON answer of a `json_object` or `json_schema` text format. */
function outputRule(g: GbnfBuilder, output: OutputFormatSpec): string {
  if (output.type === 'json_object') {
    return g.add('answer', new JsonSchemaRules(g, {}, 'answer-').expression({ type: 'object' }, ''));
  }
  if (output.type !== 'json_schema') return '""';
  const schema = output.schema;
  return g.add('answer', schemaRule(g, schema, 'answer-', 'text.format.schema'));
}

/**
 * Prose under `tool_choice: auto`: anything, except that its first character is none of the
 * characters a call opens with (so an opened call is held to the grammar).
 */
function proseRule(g: GbnfBuilder, format: ToolFormat): string {
  const firsts = [...new Set(format.triggers.map((t) => t.codePointAt(0) as number))].map(
    (c) => [c, c] as const,
  );
  return g.add('prose', `${gbnfClass(firsts, true)} .*`);
}

/**
 * The think block: free text up to the closing tag (which the text cannot contain: a `<` may not be
 * followed by `/`), then optional whitespace. A template that opened the block leaves only its end.
 */
function thinkRule(g: GbnfBuilder, markers: ReasoningMarkers): string {
  const close = markers.close;
  const first = close.codePointAt(0) as number;
  const second = close.codePointAt(1);
  const text =
    second === undefined
      ? `${gbnfClass([[first, first]], true)}*`
      : `(${gbnfClass([[first, first]], true)} | ${gbnfLiteral(String.fromCodePoint(first))} ${gbnfClass([[second, second]], true)})*`;
  const open = markers.prefilled ? '' : `${gbnfLiteral(markers.open)} `;
  return g.add('think', `${open}${text} ${gbnfLiteral(close)} [ \\n]{0,4}`);
}
