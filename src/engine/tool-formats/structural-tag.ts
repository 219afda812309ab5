/**
 * The web-llm `response_format`s built on xgrammar structural tags: tool calls as `triggered_tags`
 * (prose stays free until the model opens a call, whose name and arguments must then match a tool),
 * and, for models that think first, a free think block before whatever the grammar holds.
 */

import { heldSchema } from '../held-schema';
import type { FunctionToolSpec, OutputFormatSpec } from '../types';
import type { ReasoningMarkers } from './model-family';
import { proseOpening } from './prose-opening';
import type { TagSpec, ToolFormat } from './types';

export interface CallConstraint {
  /** `required` or a named choice: the reply must be calls, from its first token (after thinking). */
  forced: boolean;
  parallel: boolean;
  /** A JSON `text.format` the reply must follow when it does not call a tool (auto only). */
  format: OutputFormatSpec;
  /** The think block the reply opens with (models that always think), left free; null for none. */
  thinking?: ReasoningMarkers | null;
  /**
   * A think block the reply may open with but need not (Ministral 3 Reasoning's `[THINK]…[/THINK]`,
   * which its default system prompt asks for): left free ahead of a call or JSON that would
   * otherwise be held from the first token. Null for none.
   */
  mayThink?: ReasoningMarkers | null;
}

type Format = Record<string, unknown>;
/** A type alias, not an interface: web-llm's `StructuralTagLike` accepts it as a plain record. */
export type StructuralTagSpec = {
  type: 'structural_tag';
  format: Format;
};

/**
 * The structural tag (web-xgrammar's `StructuralTag`) for `tools` in `format`.
 *
 * @example
 * toolStructuralTag(hermesFormat, tools, { forced: false, parallel: true, format: { type: 'text' } });
 * // {type:'structural_tag', format:{type:'triggered_tags', triggers:['<tool_call>'], tags:[…]}}
 */
export function toolStructuralTag(
  format: ToolFormat,
  tools: FunctionToolSpec[],
  c: CallConstraint,
): StructuralTagSpec {
  const wrap = (body: Format, strict: boolean) => afterThinking(body, c.thinking, strict, c.mayThink);
  const tags = tagsOf(format, tools, c.parallel);
  const triggered = (atLeastOne: boolean): Format => ({
    type: 'triggered_tags',
    triggers: grammarTriggers(format, tags),
    tags,
    at_least_one: atLeastOne,
    stop_after_first: !c.parallel,
  });
  if (format.leading) {
    // Calls are the whole reply or none of it: the calls, or prose that does not open like one.
    const { separator } = format.leading;
    const calls: Format = {
      type: 'tags_with_separator',
      tags,
      // One list holds every call (Mistral): it is the whole reply, and the separator (which
      // xgrammar 0.1.27 needs non-empty) never comes.
      separator: separator ?? '\n',
      at_least_one: true,
      stop_after_first: !c.parallel || separator === null,
    };
    const prose: Format = {
      type: 'sequence',
      elements: [{ type: 'regex', pattern: proseOpening(format.triggers) }, { type: 'any_text' }],
    };
    if (c.forced) return wrap(calls, true);
    if (c.format.type === 'text') return wrap({ type: 'or', elements: [calls, prose] }, true);
  }
  if (c.format.type === 'text' && !c.forced) return wrap(triggered(false), false);
  if (c.forced) return wrap(triggered(true), true);
  // Either the JSON answer or one call block. xgrammar 0.1.27 fails to compile `triggered_tags`
  // or `tags_with_separator` under `or`, so this branch allows one call block (a list, in the
  // formats that write several calls as one list).
  return wrap({ type: 'or', elements: [jsonSchemaOf(c.format), ...tags] }, true);
}

/**
 * Where the structural tag for `tools` lets a call open, for the parser to read calls there only.
 *
 * @example
 * callOpenings(hermesFormat, tools, true); // ['<tool_call>\n']
 */
export function callOpenings(format: ToolFormat, tools: FunctionToolSpec[], parallel: boolean): string[] {
  return grammarTriggers(format, tagsOf(format, tools, parallel));
}

/**
 * The strings that open a call in the grammar: each trigger of the format followed by the next
 * character of the tags it opens (`<tool_call>\n`, `[TOOL_CALLS]g` for tools named `get_…`,
 * `functools[{`). A marker mentioned in prose or code ("Use `<tool_call>` like this.") is then
 * prose, not a call the grammar must finish: vLLM's parsers give such a reply back as text (a marker
 * that opens no parseable call is content), and llama.cpp's lazy grammars trigger on a call's
 * opening, not on the bare word. Triggers no tag begins with (forms a format reads but does not
 * write, Phi-4's `<|tool_call|>`) are left to the parser.
 */
function grammarTriggers(format: ToolFormat, tags: readonly TagSpec[]): string[] {
  const out = new Set<string>();
  for (const tag of tags) {
    const trigger = format.triggers.find((t) => tag.begin.startsWith(t));
    if (trigger !== undefined) out.add(tag.begin.slice(0, trigger.length + 1));
  }
  return [...out];
}

/** The format's tags for xgrammar: its own structural-tag variant where it has one. */
function tagsOf(format: ToolFormat, tools: FunctionToolSpec[], parallel: boolean): TagSpec[] {
  return (format.structuralTags ?? format.tags).call(format, tools, parallel);
}

/**
 * A JSON `text.format` for a model that thinks first: the think block, then the JSON. (Without
 * thinking, web-llm's own `json_object` grammar serves.)
 *
 * @example
 * jsonAfterThinking({ type: 'json_object' }, { open: '<think>', close: '</think>', prefilled: false });
 */
export function jsonAfterThinking(
  format: OutputFormatSpec,
  thinking: ReasoningMarkers | null,
  mayThink: ReasoningMarkers | null = null,
): StructuralTagSpec {
  return afterThinking(jsonSchemaOf(format), thinking, true, mayThink);
}

function jsonSchemaOf(format: OutputFormatSpec): Format {
  return {
    type: 'json_schema',
    json_schema:
      format.type === 'json_schema' ? heldSchema(format.schema, format.strict) : { type: 'object' },
  };
}

/**
 * `body`, after a free think block when the model thinks first. A template that opened the block
 * (`prefilled`) leaves the reply inside it, so only the closing tag is expected. `strict` bodies
 * (a call or JSON from their first character) get the whitespace models write after the block, up to
 * four characters (Qwen and R1 write `</think>\n\n`). A model that may think (`mayThink`) gets the
 * block as an alternative, as Qwen3's always-open block is given: the block then the body, or the
 * body alone (the closing marker ends the block at its first occurrence).
 */
function afterThinking(
  body: Format,
  thinking: ReasoningMarkers | null | undefined,
  strict: boolean,
  mayThink?: ReasoningMarkers | null,
): StructuralTagSpec {
  const markers = thinking ?? mayThink;
  if (!markers) return { type: 'structural_tag', format: body };
  const block = {
    type: 'tag',
    begin: markers.prefilled ? '' : markers.open,
    content: { type: 'any_text' },
    end: markers.close,
  };
  // Bounded: an unbounded `\s*` lets a small model emit newlines until max_tokens.
  const elements = strict ? [block, { type: 'regex', pattern: '\\s{0,4}' }, body] : [block, body];
  const sequence = { type: 'sequence', elements };
  if (thinking) return { type: 'structural_tag', format: sequence };
  return { type: 'structural_tag', format: { type: 'or', elements: [sequence, body] } };
}
