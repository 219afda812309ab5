/**
 * The GBNF grammar of one request: tool calls in the family's native markup with arguments held to
 * each tool's schema, a JSON `text.format`, and a free think block ahead of either for models that
 * always think. llama.cpp refuses its own `grammar` beside `tools` and ignores `tool_choice:
 * 'required'`, so intab never passes `tools` and states everything in this one grammar.
 */

import { clip } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import { heldSchema } from '../../held-schema';
import type { ReasoningMarkers } from '../../tool-formats/model-family';
import { QWEN_FREE_PARAMETERS, qwenValueKind } from '../../tool-formats/qwen-xml-arguments';
import type { TagSpec, ToolFormat } from '../../tool-formats/types';
import type { FunctionToolSpec, OutputFormatSpec } from '../../types';
import { GbnfBuilder, gbnfClass, gbnfLiteral } from './gbnf';
import { GrammarTooComplexError } from './grammar-budget';
import { JsonSchemaRules, UnsupportedSchemaError } from './json-schema-gbnf';
import { checkLlamaGrammarPaced, LlamaGrammarError } from './llama-limits';
import { proseRule } from './prose-gbnf';
import { regexToGbnf, UnsupportedPatternError } from './regex-gbnf';
import { freeParametersRule, rawValueRule } from './xml-value-gbnf';

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
  /**
   * A think block the reply may open with (Ministral 3 Reasoning, whose default system prompt asks
   * for `[THINK]…[/THINK]` first), even before a forced call or a JSON answer; null or absent if not.
   */
  mayThink?: ReasoningMarkers | null;
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

/** One schema conversion the grammar needs: the driver runs it whole, or in slices. */
interface Conversion {
  rules: JsonSchemaRules;
  schema: Record<string, unknown>;
  path: string;
}

/** The grammar's construction, handing each schema conversion out to its driver. */
type Build<T> = Generator<Conversion, T, string>;

/**
 * The grammar for `req`, or null when the reply is free text (no tools, text format). Under `auto`
 * a reply is calls or prose, and prose may not open a call (see {@link proseRule}), so a reply
 * that starts a call must finish it by the tool's schema.
 *
 * Built in slices: each schema's definitions are converted one at a time and the grammar is checked
 * a slice of rules at a time, with `between()` (a yield to the event loop: {@link pace}, unless a
 * test counts the yields) in between, so a large schema never holds the worker for its whole
 * conversion (issue 27 §4).
 *
 * @example
 * await requestGrammarPaced({ format: llama3Format, tools, forced: true, parallel: false, maxToolCalls: null,
 *   output: { type: 'text' }, thinking: null });
 * // 'root ::= call\ncall ::= "{\\"name\\": \\"get_weather\\", \\"parameters\\": " args-get-weather "}" | …'
 */
export async function requestGrammarPaced(
  req: GrammarRequest,
  between: () => Promise<void> = pace,
): Promise<string | null> {
  if (req.tools.length === 0 && req.output.type === 'text') return null;
  return withParam(req, async () => {
    const build = buildGrammar(req);
    let step = build.next();
    while (!step.done) {
      const { rules, schema, path } = step.value;
      let expression: string;
      try {
        await between();
        expression = await rules.expressionPaced(schema, path, between);
      } catch (err) {
        step = build.throw(err);
        continue;
      }
      step = build.next(expression);
    }
    await between();
    await checkLlamaGrammarPaced(step.value, between);
    return step.value;
  });
}

/** Runs `make`, turning budget and llama.cpp-limit errors into a {@link GrammarError} with a param. */
function withParam<T extends string | Promise<string>>(req: GrammarRequest, make: () => T): T {
  const param = req.output.type === 'json_schema' && req.tools.length === 0 ? 'text.format.schema' : 'tools';
  const mapped = (err: unknown): never => {
    if (err instanceof LlamaGrammarError)
      throw new GrammarError(paramOfRule(err.rule, req) ?? param, err.message);
    if (err instanceof GrammarTooComplexError) throw new GrammarError(param, err.message);
    throw err;
  };
  try {
    const out = make();
    return (out instanceof Promise ? out.catch(mapped) : out) as T;
  } catch (err) {
    return mapped(err);
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

function* buildGrammar(req: GrammarRequest): Build<string> {
  const hasTools = req.tools.length > 0;
  const g = new GbnfBuilder();
  const root = g.reserve('root');
  const body: string[] = [];
  const callsName = hasTools ? yield* callsRule(g, req) : '';
  if (hasTools) body.push(callsName);
  if (req.output.type !== 'text' && !(hasTools && req.forced)) body.push(yield* outputRule(g, req.output));
  if (hasTools && !req.forced && req.output.type === 'text') {
    // An optional think block is the think rule's alone: the reader takes a reply opening with it
    // (after whitespace) as reasoning, so prose that could open it would leave the calls after it free.
    const thinkOpen = req.mayThink && !req.mayThink.prefilled ? [req.mayThink.open] : [];
    const prose = proseRule(g, req.format, req.tools, req.parallel, thinkOpen);
    // Formats whose calls may follow text: the text, then (the call rule's) calls, as the reader reads it.
    body.push(req.format.leading ? prose : `${prose} ${callsName}?`);
  }
  const reply = body.length === 1 ? (body[0] as string) : `(${body.join(' | ')})`;
  if (req.thinking) g.fill(root, `${thinkRule(g, req.thinking)} ${reply}`);
  else if (req.mayThink) g.fill(root, `${thinkRule(g, req.mayThink)}? ${reply}`);
  else g.fill(root, reply);
  return g.toString();
}

/** `call (separator call){0,n}`: one call, or up to `max_tool_calls` when calls may be parallel. */
function* callsRule(g: GbnfBuilder, req: GrammarRequest): Build<string> {
  const tags = req.format.tags(req.tools, req.parallel);
  const alternatives: string[] = [];
  for (const [i, tag] of tags.entries()) alternatives.push(yield* tagExpression(g, tag, req.tools, i));
  const call = g.add('call', alternatives.join(' | '));
  // Formats that write every call of a turn as one list (Mistral, Phi-4) have one region.
  const oneRegion = tags.every((t) => isListSchema(t.content));
  const limit = req.maxToolCalls ?? MAX_PARALLEL_CALLS;
  if (!req.parallel || oneRegion || limit <= 1) return call;
  // Calls join as the template joins them: Llama's `; ` (calls as the whole reply), Hermes' newline,
  // nothing between Ministral's `[TOOL_CALLS]…[TOOL_CALLS]…`.
  const joint = req.format.leading?.separator ?? req.format.callSeparator ?? '\n';
  const next = joint === '' ? call : `${gbnfLiteral(joint)} ${call}`;
  return g.add('calls', `${call} (${next}){0,${limit - 1}}`);
}

function isListSchema(content: Record<string, unknown>): boolean {
  const schema = content.json_schema as Record<string, unknown> | undefined;
  return content.type === 'json_schema' && schema?.type === 'array';
}

/** One tag: its literal opening, its content (JSON arguments, a constant, or Qwen's XML), its end. */
function* tagExpression(
  g: GbnfBuilder,
  tag: TagSpec,
  tools: FunctionToolSpec[],
  index: number,
): Build<string> {
  const content = tag.content;
  let inner: string;
  const toolIndex = tools.findIndex((t) => tag.begin.includes(t.name));
  const param = toolIndex >= 0 ? `tools[${toolIndex}].parameters` : 'tools';
  if (content.type === 'json_schema') {
    const schema = content.json_schema as Record<string, unknown>;
    inner = yield* schemaRule(g, schema, `tag${index}-`, param);
  } else if (content.type === 'const_string') {
    inner = gbnfLiteral(String(content.value));
  } else if (content.type === QWEN_FREE_PARAMETERS) {
    inner = freeParametersRule(g);
  } else if (content.type === 'qwen_xml_parameter') {
    inner = yield* xmlParameters(g, content.json_schema as Record<string, unknown>, `tag${index}-`, param);
  } else {
    throw new GrammarError('tools', `Tool-call content '${String(content.type)}' has no grammar.`);
  }
  const parts = [tag.begin ? gbnfLiteral(tag.begin) : '', inner, tag.end ? gbnfLiteral(tag.end) : ''];
  return parts.filter(Boolean).join(' ');
}

/**
 * Qwen3.5's `<parameter=name>\nvalue\n</parameter>` list as web-llm's grammar has it: a value raw
 * text up to the first `\n</parameter>\n` where a string is allowed, an enum's members bare, else
 * JSON of the property's schema or the template's `True`/`False`/`None` (see {@link qwenValueKind}).
 */
function* xmlParameters(
  g: GbnfBuilder,
  schema: Record<string, unknown>,
  prefix: string,
  param: string,
): Build<string> {
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const rules = new JsonSchemaRules(g, schema, prefix);
  const items: string[] = [];
  for (const [i, name] of Object.keys(props).entries()) {
    const kind = qwenValueKind(props[name], schema);
    let value: string;
    if (kind.kind === 'raw' && kind.pattern !== undefined) value = rawPattern(kind.pattern, param);
    else if (kind.kind === 'raw') value = rawValueRule(g);
    else if (kind.kind === 'members' && kind.members.length > 0)
      value = `(${kind.members.map((m) => gbnfLiteral(m)).join(' | ')})`;
    else {
      const schema = props[name] as Record<string, unknown>;
      const json = yield* guarded({ rules, schema, path: `/properties/${name}` }, param);
      const python = kind.kind === 'json' ? kind.python.map((p) => gbnfLiteral(p)) : [];
      value = python.length === 0 ? json : `(${[json, ...python].join(' | ')})`;
    }
    // One rule per parameter: an optional group counts every rule inside it against llama.cpp's threshold.
    const one = g.add(
      `${prefix}param`,
      `${gbnfLiteral(`<parameter=${name}>\n`)} ${value} ${gbnfLiteral('\n</parameter>')}`,
    );
    const sep = i === 0 ? '' : `${gbnfLiteral('\n')} `;
    items.push(required.has(name) ? `${sep}${one}` : `(${sep}${one})?`);
  }
  return items.length === 0 ? '""' : items.join(' ');
}

/** A raw value held to a pattern, as it is written (nothing escaped); what it cannot hold is a 400. */
function rawPattern(pattern: string, param: string): string {
  try {
    return regexToGbnf(pattern, true);
  } catch (err) {
    if (err instanceof UnsupportedPatternError || err instanceof GrammarTooComplexError)
      throw new GrammarError(param, err.message);
    throw err;
  }
}

function* schemaRule(
  g: GbnfBuilder,
  schema: Record<string, unknown>,
  prefix: string,
  param: string,
): Build<string> {
  const rules = new JsonSchemaRules(g, schema, prefix);
  return yield* guarded({ rules, schema, path: '' }, param);
}

/** Hands `conversion` to the driver; a schema it cannot express becomes a 400 on `param`. */
function* guarded(conversion: Conversion, param: string): Build<string> {
  try {
    return yield conversion;
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
function* outputRule(g: GbnfBuilder, output: OutputFormatSpec): Build<string> {
  if (output.type === 'json_object') {
    // Any JSON object, as llama.cpp's JSON mode and web-llm's JSON grammar allow.
    const rules = new JsonSchemaRules(g, {}, 'answer-', true);
    return g.add('answer', yield { rules, schema: { type: 'object' }, path: '' });
  }
  if (output.type !== 'json_schema') return '""';
  const schema = heldSchema(output.schema, output.strict);
  return g.add('answer', yield* schemaRule(g, schema, 'answer-', 'text.format.schema'));
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
