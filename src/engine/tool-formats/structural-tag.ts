/**
 * The web-llm `response_format`s built on xgrammar structural tags: tool calls as `triggered_tags`
 * (prose stays free until the model opens a call, whose name and arguments must then match a tool),
 * and, for models that think first, a free think block before whatever the grammar holds.
 */

import type { FunctionToolSpec, OutputFormatSpec } from '../types';
import type { ReasoningMarkers } from './model-family';
import type { TagSpec, ToolFormat } from './types';

export interface CallConstraint {
  /** `required` or a named choice: the reply must be calls, from its first token (after thinking). */
  forced: boolean;
  parallel: boolean;
  /** A JSON `text.format` the reply must follow when it does not call a tool (auto only). */
  format: OutputFormatSpec;
  /** The think block the reply opens with (models that always think), left free; null for none. */
  thinking?: ReasoningMarkers | null;
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
  const triggered = (atLeastOne: boolean): Format => ({
    type: 'triggered_tags',
    triggers: [...format.triggers],
    tags: tagsOf(format, tools, c.parallel),
    at_least_one: atLeastOne,
    stop_after_first: !c.parallel,
  });
  if (format.leading) {
    // Calls are the whole reply or none of it: the calls, or prose that does not open like one.
    const calls: Format = {
      type: 'tags_with_separator',
      tags: tagsOf(format, tools, c.parallel),
      separator: format.leading.separator,
      at_least_one: true,
      stop_after_first: !c.parallel,
    };
    const prose: Format = {
      type: 'sequence',
      elements: [{ type: 'regex', pattern: '[^{\\s]' }, { type: 'any_text' }],
    };
    if (c.forced) return afterThinking(calls, c.thinking, true);
    if (c.format.type === 'text')
      return afterThinking({ type: 'or', elements: [calls, prose] }, c.thinking, true);
  }
  if (c.format.type === 'text' && !c.forced) return afterThinking(triggered(false), c.thinking, false);
  if (c.forced) return afterThinking(triggered(true), c.thinking, true);
  // Either the JSON answer or one call block. xgrammar 0.1.27 fails to compile `triggered_tags`
  // or `tags_with_separator` under `or`, so this branch allows one call block (a list, in the
  // formats that write several calls as one list).
  const answer = jsonSchemaOf(c.format);
  return afterThinking(
    { type: 'or', elements: [answer, ...tagsOf(format, tools, c.parallel)] },
    c.thinking,
    true,
  );
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
export function jsonAfterThinking(format: OutputFormatSpec, thinking: ReasoningMarkers): StructuralTagSpec {
  return afterThinking(jsonSchemaOf(format), thinking, true);
}

function jsonSchemaOf(format: OutputFormatSpec): Format {
  return {
    type: 'json_schema',
    json_schema: format.type === 'json_schema' ? format.schema : { type: 'object' },
  };
}

/**
 * `body`, after a free think block when the model thinks first. A template that opened the block
 * (`prefilled`) leaves the reply inside it, so only the closing tag is expected. `strict` bodies
 * (a call or JSON from their first character) get the whitespace models write after the block, up to
 * four characters (Qwen and R1 write `</think>\n\n`).
 */
function afterThinking(
  body: Format,
  thinking: ReasoningMarkers | null | undefined,
  strict: boolean,
): StructuralTagSpec {
  if (!thinking) return { type: 'structural_tag', format: body };
  const block = {
    type: 'tag',
    begin: thinking.prefilled ? '' : thinking.open,
    content: { type: 'any_text' },
    end: thinking.close,
  };
  // Bounded: an unbounded `\s*` lets a small model emit newlines until max_tokens.
  const elements = strict ? [block, { type: 'regex', pattern: '\\s{0,4}' }, body] : [block, body];
  return { type: 'structural_tag', format: { type: 'sequence', elements } };
}
