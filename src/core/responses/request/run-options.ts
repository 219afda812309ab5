import type { ClientCall } from './tools/client-tools/client-tool-names';

/**
 * How a run builds its output, as preparation decides it from the request (`include`, `reasoning`,
 * `parallel_tool_calls`): part of the prepared value the run stage receives.
 */

/** What a reasoning item shows besides its text: a summary part, an opaque copy for stateless reuse. */
export interface ReasoningOptions {
  /** `reasoning.summary` was asked for: add a `summary_text` part. */
  summary: boolean;
  /** `include: ['reasoning.encrypted_content']`: give the item an `encrypted_content` string. */
  encryptedContent: boolean;
}

export interface RunOptions extends ReasoningOptions {
  /** `include: ['message.output_text.logprobs']`: put the engine's logprobs on text parts and events. */
  logprobs: boolean;
  /** Function calls past this many are dropped (1 without parallel tool calls; `max_tool_calls` counts built-in calls only). */
  maxToolCalls?: number | null;
  /** The names of the request's `custom` tools: their calls come out as `custom_tool_call` items. */
  customTools?: ReadonlySet<string>;
  now?: () => number;
  /** Where item and call ids come from: fresh ones, or a stored response's own when it is replayed. */
  newId?: (prefix: IdPrefix) => string;
  /** The model-facing names of client tools (issue 45): their calls become typed items, not `function_call`. */
  clientCalls?: ReadonlyMap<string, ClientCall>;
}

/** The prefixes of the ids a run hands out. */
export type IdPrefix = 'msg' | 'rs' | 'fc' | 'call' | 'fs' | 'ctc' | 'sh' | 'apc' | 'lsh' | 'tsc';
