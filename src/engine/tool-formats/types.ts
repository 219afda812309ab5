/**
 * A model family's native tool-calling format: how tools are taught, how calls and results look in
 * history, which structural tag constrains a call, and how a streamed call is recognised and parsed.
 */
import type { FunctionToolSpec } from '../types';
import type { PartialCallHead } from './partial-call';

/** A parsed call: `arguments` is a JSON string, as the wire wants it. */
export interface ParsedToolCall {
  name: string;
  arguments: string;
}

/** A tool call in history, as the core hands it over. */
export interface HistoryCall {
  name: string;
  /** The JSON text the model (or the client) sent. */
  arguments: string;
  callId: string;
}

/** A tool result in history. */
export interface HistoryResult {
  name: string;
  callId: string;
  content: string;
}

/** One xgrammar `tag` of a structural tag (web-xgrammar's `TagFormat`, kept structural here). */
export interface TagSpec {
  type: 'tag';
  begin: string;
  content: Record<string, unknown>;
  end: string;
}

/**
 * @example
 * const f = toolFormatFor('Qwen2.5-1.5B-Instruct-q4f16_1-MLC'); // the `<tool_call>` format
 * f.renderCalls([{ name: 'f', arguments: '{}', callId: 'c1' }]);
 */
export interface ToolFormat {
  readonly id: string;
  /**
   * Where the tool section goes: after the system text, before it (Llama 3.1 lists functions first),
   * at the start of the last user turn (Mistral v3), or after the system block, ahead of every
   * message (Ministral 3: `[/SYSTEM_PROMPT][AVAILABLE_TOOLS]…[/AVAILABLE_TOOLS][INST]`).
   */
  readonly placement: 'system' | 'system-before' | 'last-user' | 'after-system';
  /** What joins the tool section to the system text; a blank line unless the template glues them. */
  readonly separator?: string;
  /** The tool section: definitions plus how to call them, in the family's own words. */
  toolSection(tools: FunctionToolSpec[]): string;
  /** An assistant turn's calls, exactly as the model would have written them. */
  renderCalls(calls: HistoryCall[]): string;
  /** Consecutive tool results, as the text of the one user turn that carries them. */
  renderResults(results: HistoryResult[]): string;
  /** What may separate consecutive calls beyond whitespace (Llama's `;`); dropped, never prose. */
  readonly between?: RegExp;
  /**
   * What the template writes between a turn's consecutive calls where each is a tag of its own
   * (Hermes' and Phi-4's newline; nothing for Ministral 3, whose calls each open with
   * `[TOOL_CALLS]`): the grammar joins parallel calls with it. Formats whose calls are the whole
   * reply say theirs in `leading`.
   */
  readonly callSeparator?: string;
  /**
   * Set where calls are the whole reply, never inside prose (Llama 3.x: Meta's parsers read a reply
   * that starts with `{` or `<|python_tag|>` as calls, several joined by `separator`; Mistral v0.3,
   * whose template writes a turn's calls as the whole turn, one `[TOOL_CALLS]` list holding them all:
   * `separator` null). Triggers then count only at the start of the reply, and the grammar offers
   * calls or prose, not calls in prose: a marker met in prose is prose.
   */
  readonly leading?: { separator: string | null };
  /**
   * Strings that open a call in the output. Each is a prefix of some tag's `begin`, except forms a
   * format reads but never writes (Phi-4's `<|tool_call|>`), which only the parser looks for.
   */
  readonly triggers: readonly string[];
  /** The structural tag `tag`s that constrain calls of `tools` (one call each unless `parallel`). */
  tags(tools: FunctionToolSpec[], parallel: boolean): TagSpec[];
  /**
   * The `tag`s for web-llm's xgrammar structural tag where they differ from `tags`, which other
   * grammar builders (wllama's GBNF) read: Qwen3.5's raw values need xgrammar's `any_text`.
   */
  structuralTags?(tools: FunctionToolSpec[], parallel: boolean): TagSpec[];
  /**
   * Given output that starts with a trigger, the index just past that one call (or call list), or
   * -1 while it is incomplete. Calls that follow are found again by their own trigger.
   */
  regionEnd(text: string): number;
  /**
   * Parses one complete region into calls of known tools; null when it is not one. `schemas` (each
   * tool's argument schema, by name) types values a format writes bare (Qwen3.5's XML parameters).
   */
  /**
   * For a region still being written (it starts with a trigger): the tool its first call names and
   * a stream of that call's arguments, once the text has reached them; null before. Lets a call's
   * arguments stream as the model writes them (`schemas` types values a format writes bare).
   * Optional: a format without it yields whole calls only.
   */
  argumentsStart?(
    region: string,
    schemas?: Readonly<Record<string, Record<string, unknown>>>,
  ): PartialCallHead | null;
  parseRegion(
    region: string,
    known: readonly string[],
    schemas?: Readonly<Record<string, Record<string, unknown>>>,
  ): ParsedToolCall[] | null;
}
