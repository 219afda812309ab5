/**
 * The Engine contract: the Responses core speaks to every model through it. The core has already
 * applied instructions, history and truncation; an engine sees plain chat messages.
 */

/** A chat message, in the shape OpenAI's Chat Completions (and web-llm) use. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | {
      role: 'assistant';
      content: string | null;
      tool_calls?: ChatToolCall[];
      /**
       * What the model reasoned before this turn (a Responses reasoning item's text), for engines
       * whose model template shows it again (Qwen3 in a tool loop); others ignore it.
       */
      reasoning?: string;
    }
  | { role: 'tool'; content: string; tool_call_id: string; name: string };

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** A function tool the model may call. `parameters` is a JSON Schema. */
export interface FunctionToolSpec {
  name: string;
  description?: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

export type ToolChoiceSpec = 'none' | 'auto' | 'required' | { name: string };

export type OutputFormatSpec =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean };

export interface GenerateRequest {
  model: string;
  messages: ChatMessage[];
  /**
   * Every tool the request declares. The prompt shows them all whatever `toolChoice` says, as
   * llama.cpp does: a prompt that changed with the choice would hide tools the history called and
   * miss the engines' prefix caches. Which of them a reply may call is the grammar's to hold
   * (`callableTools` of tool-formats/request-plan.ts).
   */
  tools: FunctionToolSpec[];
  /** `none`: no call; a name: a call to that tool; `required`: a call; `auto`: a call or prose. */
  toolChoice: ToolChoiceSpec;
  /**
   * `tool_choice: {type: 'allowed_tools'}`: the names of the tools in `tools` a reply may call
   * (`toolChoice` is then its mode); null or absent: every one.
   */
  allowedTools?: string[] | null;
  parallelToolCalls: boolean;
  /** `max_tool_calls`: the most tool calls the reply may make; null or absent = no limit. */
  maxToolCalls?: number | null;
  format: OutputFormatSpec;
  /** `reasoning.effort`, or null when none was asked for. */
  reasoningEffort: string | null;
  maxOutputTokens: number | null;
  temperature: number | null;
  topP: number | null;
  /** Number of top logprobs to return per token; null = no logprobs. */
  topLogprobs: number | null;
  /** Chat Completions' `seed`: engines that sample reproducibly use it; null or absent = random. */
  seed?: number | null;
  /** Chat Completions' `stop`, for engines that stop natively; the core cuts the text at them anyway. */
  stop?: string[];
}

export interface TopLogprob {
  token: string;
  logprob: number;
  bytes: number[];
}

export interface TokenLogprob extends TopLogprob {
  top_logprobs: TopLogprob[];
}

export interface EngineUsage {
  input_tokens: number;
  output_tokens: number;
  reasoning_tokens: number;
  /** Input tokens the engine found already computed (its KV cache held the prefix); absent = 0. */
  cached_tokens?: number;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls';

/** What an engine yields while generating. The core turns these into Responses output items and events. */
export type EngineChunk =
  | { type: 'text'; delta: string; logprobs?: TokenLogprob[] }
  | { type: 'reasoning'; delta: string }
  | { type: 'refusal'; delta: string }
  /** A whole tool call; engines parse calls before yielding them. */
  | { type: 'tool_call'; name: string; arguments: string }
  /**
   * Part of a tool call still being written, for consumers that show a call as it comes (the code
   * of a `code_interpreter` call); others skip it, and the `tool_call` that follows is the call.
   * `index` is the call's place among the reply's `tool_call` chunks (0 for the first): that chunk
   * completes it. `arguments_delta` is the arguments' JSON text as the model writes it, so the
   * deltas join to the same value as the whole call's `arguments` (which an engine may
   * re-serialize: spacing and escapes can differ). An engine may send none, or stop sending them,
   * and a partial call that parses into no call is followed by no `tool_call` of its index.
   */
  | { type: 'tool_call_delta'; index: number; name: string; arguments_delta: string }
  | { type: 'done'; finishReason: FinishReason; usage: EngineUsage };

export interface ModelInfo {
  id: string;
  owned_by: string;
  created: number;
  /** Context window, in the model's tokens. */
  contextWindow: number;
  /** Whether the model accepts image input. */
  vision: boolean;
  /**
   * What the model serves: `chat` (responses, chat completions) and/or `embeddings`. Absent means
   * chat only. web-llm's embedding models say `['embeddings']`; `scripted` does both.
   */
  capabilities?: readonly ModelCapability[];
  /** The engine that serves it (`scripted`, `web-llm`, `wllama`), listed by `/v1/models`. */
  engine?: string;
  /** Whether its weights are in the browser's cache already (no download); absent when unknown. */
  cached?: boolean;
  /**
   * Where a downloaded GGUF's weights are kept: `opfs`, `cache-api` (both survive a reload) or
   * `memory` (this session only: no OPFS or Cache API opened); absent until the cache has opened.
   */
  modelCache?: string;
  /** Where it runs once loaded (`cpu`, `webgpu`); absent before. */
  device?: string;
  /**
   * llama.cpp's threads once loaded (wllama's own count: 1 unless the page is cross-origin
   * isolated, which its multi-threaded build needs); absent before and on other engines.
   */
  threads?: number;
  /** Which llama.cpp wasm runs a loaded GGUF model: `simd` (intab's, threaded), `simd-st` (intab's, 1 thread) or `stock` (wllama's). */
  wasm?: string;
}

/** A kind of work a model does; the core refuses a request a model cannot serve with a 400 on `model`. */
export type ModelCapability = 'chat' | 'embeddings';

/** What {@link Engine.embed} answers: one vector per input, in input order, and the tokens read. */
export interface EmbedResult {
  vectors: number[][];
  /** Input tokens in the model's own tokenizer, for `usage.prompt_tokens`. */
  tokens: number;
}

/** How {@link Engine.countTokens} must count. */
export interface CountOptions {
  /** The exact count, even when it costs a model run. */
  exact?: boolean;
  /**
   * The rest of the request whose prompt is counted (its tool choice, output format and reasoning
   * effort), which an engine renders into the prompt as a generation does: the JSON instruction, a
   * template's `enable_thinking: false` (every tool shows whatever the choice). Absent: `auto`, text
   * and the default effort. `promptShape(request)` takes it from a `GenerateRequest`.
   */
  shape?: PromptShape;
}

/** What of a request besides its messages and tools shapes the prompt a model reads. */
export type PromptShape = Pick<GenerateRequest, 'toolChoice' | 'format' | 'reasoningEffort'>;

/**
 * The prompt shape of a request, for `countTokens` to count what a generation would read.
 *
 * @example
 * engine.countTokens(req.model, req.messages, req.tools, { exact: true, shape: promptShape(req) });
 */
export function promptShape(req: PromptShape): PromptShape {
  return { toolChoice: req.toolChoice, format: req.format, reasoningEffort: req.reasoningEffort };
}

export interface LoadProgress {
  /** 0..1 */
  progress: number;
  text: string;
  /**
   * Bytes received over the network so far in this load, where the engine counts them (web-llm):
   * they move between the engine's own reports, which may come once per tens of MB.
   */
  receivedBytes?: number;
}

/**
 * A model runtime. Errors thrown from any method should be `ApiError`s (see core/api-error) when they
 * map to a client-visible status (400 context overflow, 503 no WebGPU); anything else becomes a 500.
 *
 * @example
 * for await (const chunk of engine.generate(req, signal)) if (chunk.type === 'text') out += chunk.delta;
 */
export interface Engine {
  /** The models this engine serves. Cheap; no I/O. */
  models(): ModelInfo[];
  /**
   * Completes what `models()` needs to list every model, e.g. a model list that arrives with a lazily
   * imported module. The core awaits it before every route that names a model, so it must settle
   * within seconds; it may reject when the list could not be completed (`models()` then lists the
   * rest). Optional: an engine with a fixed list leaves it out.
   */
  init?(): Promise<unknown>;
  /**
   * Why a model may be missing from `models()` right now (e.g. "the model list could not be
   * loaded: …"), or null; the core adds it to its 400 `model_not_found`. Optional.
   */
  missingReason?(): string | null;
  /**
   * Cheap checks that `modelId` can run here at all (a WebGPU adapter with the features the model
   * needs, say), with no download. The core calls it before any response header goes out, so a
   * request that cannot succeed still gets its HTTP status (503 `webgpu_unavailable`); the load
   * itself then runs inside the response. With `req`, the request's own checks that would otherwise
   * fail only after the headers (a JSON schema the engine's grammar cannot compile: a 400). Optional.
   */
  preflight?(modelId: string, req?: GenerateRequest): Promise<void>;
  /** Makes `modelId` ready to generate, reporting progress. Idempotent. */
  load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void>;
  /**
   * Stops a `load` of `modelId` in flight, whose callers then fail; resolves true when one was
   * stopped. Optional: an engine whose loads cannot be stopped leaves it out.
   */
  cancelLoad?(modelId: string): Promise<boolean>;
  /**
   * Streams one generation. Aborting `signal` must stop generation within one token and end the
   * iterator (it may throw an AbortError or just return).
   */
  generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk>;
  /**
   * Counts the tokens `messages` (plus tools) take in the model's own tokenizer. Without
   * `opts.exact`, an engine whose exact count costs inference (llama.cpp, which has no tokenizer
   * call in wllama) may answer a bound that is at least the exact count, when that bound already
   * fits the context window: the core only needs to know the input fits, and usage comes from the
   * run itself. Routes that report the count (`input_tokens`, compaction) ask for it exact.
   */
  countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools?: FunctionToolSpec[],
    opts?: CountOptions,
  ): Promise<number>;
  /**
   * Whether `countTokens` is exact for `modelId` now; absent means always. A real model's tokenizer
   * comes with its weights, so before the first load the count is an estimate.
   */
  countsExactly?(modelId: string): Promise<boolean>;
  /**
   * Embeds each text with an embedding model (one listing `embeddings` in its capabilities), loading
   * it first if needed. `dimensions` asks for shorter vectors; a model that cannot shorten its own
   * throws a 400 on `dimensions`. Optional: an engine without it serves no `/v1/embeddings`.
   * Once `signal` aborts, an engine that embeds input by input stops before the next input.
   *
   * @example
   * const { vectors, tokens } = await engine.embed('scripted', ['hello world'], 16);
   */
  embed?(modelId: string, inputs: string[], dimensions?: number, signal?: AbortSignal): Promise<EmbedResult>;
}
