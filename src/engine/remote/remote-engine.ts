/**
 * The remote engine: each engine pass is one `POST {baseURL}/chat/completions` to an
 * OpenAI-compatible server (vLLM, SGLang, Ollama, LM Studio, llama-server, OpenAI), while the rest
 * of the Responses API (store, conversations, background mode, replay) stays in the tab. It sits
 * behind the same {@link Engine} contract as the local engines, so the core does not know.
 */
import { invalidRequest, modelNotFound } from '../../common/api-error';
import type {
  ChatMessage,
  EmbedResult,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  ModelInfo,
} from '../types';
import { chatBody } from './remote-body';
import { ChunkMapper } from './remote-chunks';
import { offline, quote, serverSecrets, upstreamError } from './remote-errors';
import { type FetchLike, readJson, remoteFetch } from './remote-fetch';
import { listRemoteModels, type RemoteModel, remoteModel } from './remote-models';
import { normalizeServer, REMOTE_STALL_MS, type RemoteServerSpec } from './remote-options';
import { redactChunks } from './remote-redact';
import { sseData } from './remote-sse';

export interface RemoteEngineOptions {
  /** Servers known from start-up (`startIntab({ remote })`). */
  servers?: RemoteServerSpec[];
  /**
   * Start-up servers that arrive later (the engine worker gets them in a message, not in its name):
   * {@link RemoteEngine.init} waits for them.
   */
  pendingServers?: Promise<RemoteServerSpec[]>;
  /** The fetch to use; default the global one (tests pass a fake). */
  fetch?: FetchLike;
  /** Bound on silence inside a stream; default {@link REMOTE_STALL_MS}. */
  stallMs?: number;
}

/** Tokens an image may take, for the count's bound (the largest tilings of common vision models). */
const IMAGE_TOKEN_BOUND = 4096;
/** Template tokens per message (role markers, separators), for the count's bound. */
const MESSAGE_OVERHEAD = 8;

/**
 * @example
 * const remote = new RemoteEngine({ servers: [{ baseURL: 'http://127.0.0.1:8080/v1', apiKey }] });
 * await remote.init(); // its models are listed now (from GET /v1/models)
 * for await (const c of remote.generate(req, signal)) …
 */
export class RemoteEngine implements Engine {
  private readonly listed = new Map<string, RemoteModel>();
  private readonly pending: Promise<unknown>[] = [];
  private readonly failures: string[] = [];
  private readonly fetch: FetchLike;

  constructor(private readonly opts: RemoteEngineOptions = {}) {
    // Bound to globalThis: a worker's fetch called detached throws "Illegal invocation".
    this.fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.addStartupServers(opts.servers ?? []);
    if (opts.pendingServers)
      this.pending.push(opts.pendingServers.then((specs) => this.addStartupServers(specs)));
  }

  /** Lists start-up servers; one that fails is named by {@link missingReason}, the others serve. */
  private addStartupServers(specs: RemoteServerSpec[]): Promise<unknown> {
    const added = specs.map((spec) =>
      this.addServer(spec).catch((err: unknown) => {
        this.failures.push(err instanceof Error ? err.message : String(err));
      }),
    );
    this.pending.push(...added);
    return Promise.all(added);
  }

  /**
   * Adds a server and lists its models (from `spec.models`, or its `GET /models`); answers their
   * listings. Rejects (502, 401, …) when the server cannot list them.
   *
   * @example
   * await remote.addServer({ baseURL: 'http://127.0.0.1:8080/v1' }); // → [{ id: 'tiny', engine: 'remote', … }]
   */
  async addServer(spec: RemoteServerSpec): Promise<ModelInfo[]> {
    const server = normalizeServer(spec);
    // Models given up front are listed at once (synchronously, before any await).
    const models = server.models
      ? server.models.map((m) => remoteModel(server, m))
      : await listRemoteModels(server, this.fetch);
    for (const m of models) this.listed.set(m.info.id, m);
    return models.map((m) => m.info);
  }

  /** Settles once the start-up servers' lists are in; rejects naming those that failed. */
  async init(): Promise<void> {
    // Settling one may push more (the pending start-up servers), so wait until none is new.
    for (let seen = 0; seen < this.pending.length; ) {
      const batch = this.pending.slice(seen);
      seen = this.pending.length;
      await Promise.allSettled(batch);
    }
    if (this.failures.length > 0) throw new Error(this.failures.join(' '));
  }

  missingReason(): string | null {
    return this.failures.length > 0 ? this.failures.join(' ') : null;
  }

  models(): ModelInfo[] {
    return [...this.listed.values()].map((m) => m.info);
  }

  /** Nothing to check before the headers but the network: offline, a remote model fails at once. */
  async preflight(modelId: string): Promise<void> {
    const { server } = this.route(modelId);
    if ((globalThis as { navigator?: { onLine?: boolean } }).navigator?.onLine === false)
      throw offline(server);
  }

  /** The server holds the model: nothing to load here. */
  async load(modelId: string): Promise<void> {
    this.route(modelId);
  }

  /**
   * The server's stream, with its own secrets (key, header values) redacted from everything it
   * writes: a server (or a model it prompts) that echoes the key gets `[redacted]` stored and sent.
   */
  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    const route = this.route(req.model);
    yield* redactChunks(this.upstreamChunks(req, signal, route), serverSecrets(route.server));
  }

  private async *upstreamChunks(
    req: GenerateRequest,
    signal: AbortSignal,
    { server, upstream }: ReturnType<RemoteEngine['route']>,
  ): AsyncGenerator<EngineChunk> {
    const body = chatBody(req, upstream);
    const { res, abort } = await remoteFetch({
      server,
      path: '/chat/completions',
      method: 'POST',
      body,
      signal,
      fetch: this.fetch,
    });
    const mapper = new ChunkMapper(server, req.maxToolCalls ?? null);
    try {
      if (!res.body) throw upstreamError(server, 'answered with an empty body.');
      if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        // A server that ignored `stream: true` answers one JSON completion: same mapping.
        const json = (await readJson(res, server, signal)) as Record<string, unknown>;
        const choices = Array.isArray(json?.choices) ? json.choices : null;
        if (!choices && json?.error === undefined)
          throw upstreamError(
            server,
            `answered something that is not a chat completion: ${quote(JSON.stringify(json), server)}`,
          );
        yield* mapper.push({
          ...json,
          choices: choices?.map((c: Record<string, unknown>) => ({ ...c, delta: c.message })),
        });
      } else {
        for await (const data of sseData(res.body, server, this.opts.stallMs ?? REMOTE_STALL_MS)) {
          let json: unknown;
          try {
            json = JSON.parse(data);
          } catch {
            throw upstreamError(server, `sent a stream chunk that is not JSON: ${quote(data, server)}`);
          }
          yield* mapper.push(json);
        }
      }
      yield* mapper.finish(countBound(req.messages, req.tools));
    } catch (err) {
      // Aborted: the connection is closed below (llama-server frees the slot), the iterator ends.
      if (signal.aborted) return;
      throw err;
    } finally {
      abort();
    }
  }

  /**
   * A bound, not an exact count: the OpenAI API has no tokenizer route. A byte-level BPE token is at
   * least one UTF-8 byte, so bytes plus a per-message allowance bound the count from above; usage
   * then comes exact from the server's usage chunk.
   */
  async countTokens(modelId: string, messages: ChatMessage[], tools?: FunctionToolSpec[]): Promise<number> {
    this.route(modelId);
    return countBound(messages, tools ?? []);
  }

  async countsExactly(): Promise<boolean> {
    return false;
  }

  async embed(
    modelId: string,
    inputs: string[],
    dimensions?: number,
    signal?: AbortSignal,
  ): Promise<EmbedResult> {
    const { server, upstream } = this.route(modelId);
    const body = {
      model: upstream,
      input: inputs,
      encoding_format: 'float',
      ...(dimensions ? { dimensions } : {}),
    };
    const { res } = await remoteFetch({
      server,
      path: '/embeddings',
      method: 'POST',
      body,
      signal,
      fetch: this.fetch,
    });
    const json = (await readJson(res, server, signal)) as { data?: unknown; usage?: Record<string, unknown> };
    const data = Array.isArray(json?.data) ? (json.data as Record<string, unknown>[]) : null;
    if (!data || data.length !== inputs.length)
      throw upstreamError(
        server,
        `answered /embeddings without one vector per input: ${quote(JSON.stringify(json), server)}`,
      );
    const vectors = [...data]
      .sort((a, b) => Number(a.index ?? 0) - Number(b.index ?? 0))
      .map((d) => {
        const v = d.embedding;
        if (!Array.isArray(v) || !v.every((x) => typeof x === 'number'))
          throw upstreamError(server, 'answered /embeddings with a vector that is not a list of numbers.');
        return v as number[];
      });
    if (dimensions && vectors.some((v) => v.length !== dimensions))
      throw invalidRequest(
        'dimensions',
        `The remote model '${modelId}' cannot shorten its embeddings to ${dimensions} dimensions.`,
      );
    const usage = json.usage ?? {};
    const tokens =
      typeof usage.prompt_tokens === 'number'
        ? usage.prompt_tokens
        : typeof usage.total_tokens === 'number'
          ? usage.total_tokens
          : 0;
    return { vectors, tokens };
  }

  private route(modelId: string): RemoteModel {
    const m = this.listed.get(modelId);
    if (!m) throw modelNotFound(modelId, this.missingReason());
    return m;
  }
}

/** An upper bound on the tokens of `messages` and `tools` (see {@link RemoteEngine.countTokens}). */
function countBound(messages: ChatMessage[], tools: FunctionToolSpec[]): number {
  const enc = new TextEncoder();
  let n = 16 + (tools.length ? enc.encode(JSON.stringify(tools)).length : 0);
  for (const m of messages) {
    n += MESSAGE_OVERHEAD;
    if (typeof m.content === 'string') n += enc.encode(m.content).length;
    else if (Array.isArray(m.content))
      for (const p of m.content) n += p.type === 'text' ? enc.encode(p.text).length : IMAGE_TOKEN_BOUND;
    if (m.role === 'assistant' && m.tool_calls) n += enc.encode(JSON.stringify(m.tool_calls)).length;
  }
  return n;
}
