/**
 * The llama.cpp engine: GGUF models on the CPU (or WebGPU) through `@wllama/wllama`, which runs
 * llama.cpp compiled to WebAssembly in a worker of its own. It needs no WebGPU, so it serves where
 * web-llm cannot (Firefox, Safari, GPUs without WebGPU) and runs any GGUF, not only web-llm builds.
 */
import type { ChatCompletionChunk, WllamaConfig } from '@wllama/wllama/esm/index.js';
import {
  ApiError,
  invalidRequest,
  modelNotFound,
  serviceUnavailable,
  unsupportedModel,
} from '../../common/api-error';
import { base64ToBytes } from '../../common/base64';
import type {
  ChatMessage,
  CountOptions,
  EmbedResult,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  LoadProgress,
  ModelInfo,
} from '../types';
import { Gate, StallTimeoutError, withStallTimeout } from '../webllm/webllm-gate';
import { ReplyAssembler } from '../webllm/webllm-reply';
import { webGpuHas } from '../webllm/webllm-webgpu';
import { ChunkQueue, TimeoutError, withTimeout } from './chunk-queue';
import { GgufFormatError, readGgufHeader } from './gguf-header';
import { preflightGrammar } from './grammar';
import {
  byteBound,
  DEFAULT_MAX_FIRST_TOKEN_MS,
  embedEach,
  estimateTokens,
  firstTokenBoundMs,
  WaitQueue,
} from './limits';
import { embeddingAborted } from './limits/embed-each';
import { LlamaLog } from './llama-log';
import { wllamaModelFetcher } from './model-fetcher';
import { type TemplateInputs, templateInputs } from './template-inputs';
import type { TemplateMessage } from './template-messages';
import { isInstanceDead, mapGenerateError, mapLoadError, overflowTokens } from './wllama-errors';
import {
  defaultThreads,
  type GgufFacts,
  ggufFacts,
  loadParams,
  type WllamaChunk,
  WllamaInstance,
} from './wllama-instance';
import { DEFAULT_CONTEXT, wllamaListing } from './wllama-listing';
import type { ModelFetcher, WllamaEngineOptions, WllamaLike, WllamaModelSpec } from './wllama-options';
import { type LlamaTokenProbs, planWllamaRequest, toTokenLogprobs } from './wllama-request';

type WllamaModule = typeof import('@wllama/wllama/esm/index.js');

const DEFAULT_LOAD_TIMEOUT_MS = 120_000;
const DEFAULT_STALL_MS = 60_000;
/** How long an aborted generation may take to stop before its instance is discarded. */
const DRAIN_MS = 10_000;
/** Bound on listing the weight cache for `/v1/models`. */
const CACHE_LIST_MS = 5_000;
/** Counts kept per engine (prompt → tokens), so one request's repeated counts run llama.cpp once. */
const COUNT_CACHE = 64;

interface Registered {
  spec: WllamaModelSpec;
  created: number;
}

interface PendingLoad {
  promise: Promise<WllamaInstance>;
  listeners: Set<(p: LoadProgress) => void>;
}

/**
 * GGUF models behind the Engine interface. One job (load, generation, count, embedding) reaches
 * llama.cpp at a time; every wait on llama.cpp is bounded, and an instance that crashes or stops
 * answering fails the request with llama.cpp's own words and is replaced on the next request.
 *
 * @example
 * const engine = new WllamaEngine({ models: [{ id: 'tiny', url: '/models/tiny.gguf' }], wasmUrl });
 * await engine.load('tiny', (p) => console.log(p.text));
 * for await (const chunk of engine.generate(req, signal)) …
 */
export class WllamaEngine implements Engine {
  private readonly registered = new Map<string, Registered>();
  private readonly instances = new Map<string, WllamaInstance>();
  private readonly facts = new Map<string, GgufFacts>();
  private readonly pending = new Map<string, PendingLoad>();
  private readonly gate = new Gate();
  /** Requests waiting for the gate (or a load), capped at `maxQueue`. */
  private readonly queue: WaitQueue;
  private readonly counts = new Map<string, number>();
  private cachedUrls = new Set<string>();
  private lib: Promise<WllamaModule> | null = null;
  private readonly fetcher: ModelFetcher;
  /** The engine's own log (downloads), kept for error messages. */
  private readonly log = new LlamaLog();

  constructor(private readonly opts: WllamaEngineOptions = {}) {
    this.queue = new WaitQueue(opts.maxQueue);
    for (const spec of opts.models ?? []) this.addModel(spec);
    this.fetcher = opts.fetchModel ?? wllamaModelFetcher(() => this.module(), this.log.logger);
  }

  /**
   * Registers (or replaces, by id) a GGUF model, e.g. one the user just picked. Returns its listing.
   *
   * @example
   * engine.addModel({ id: 'my-model', files: [file] });
   */
  addModel(spec: WllamaModelSpec): ModelInfo {
    if (!spec.url && !(spec.files && spec.files.length > 0)) {
      throw invalidRequest('url', `The model '${spec.id}' needs a url or files.`);
    }
    const old = this.instances.get(spec.id);
    if (old) {
      old.kill('replaced');
      this.instances.delete(spec.id);
    }
    this.facts.delete(spec.id);
    this.registered.set(spec.id, { spec, created: Math.floor(Date.now() / 1000) });
    return this.info(spec.id) as ModelInfo;
  }

  /** Learns which URL models are in the weight cache, for `cached` in `/v1/models`. Never rejects. */
  async init(): Promise<void> {
    if (![...this.registered.values()].some((r) => r.spec.url)) return;
    await this.refreshCached();
  }

  models(): ModelInfo[] {
    return [...this.registered.keys()].map((id) => this.info(id) as ModelInfo);
  }

  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    const { spec } = this.registration(modelId);
    // Before any header, so a streamed request past the cap gets its 429 status line too.
    this.queue.refuseWhenFull(modelId, this.gate.averageTurnMs);
    if (req) await preflightGrammar(req);
    if (spec.device === 'webgpu' && !(await this.webGpuF16())) {
      throw serviceUnavailable(
        `The model '${modelId}' is configured for WebGPU, but this browser has no WebGPU adapter with shader-f16 (llama.cpp's WebGPU backend needs it). Use device 'auto' or 'cpu'.`,
        'webgpu_unavailable',
      );
    }
  }

  async load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    this.registration(modelId);
    const live = this.instances.get(modelId);
    if (live && !live.dead && !this.pending.has(modelId)) return;
    await this.queue.queued(this.loadShared(modelId, onProgress, true));
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncGenerator<EngineChunk> {
    this.registration(req.model);
    if (this.kindOf(req.model) === 'embeddings') throw unsupportedModel(req.model, 'chat');
    this.queue.refuseWhenFull(req.model, this.gate.averageTurnMs);
    const release = await this.queue.queued(this.gate.acquire(signal));
    if (!release) return;
    let drained: Promise<void> | null = null;
    try {
      const inst = await this.loadShared(req.model, undefined, false);
      const plan = await planWllamaRequest(req, inst.facts);
      const queue = new ChunkQueue<WllamaChunk>();
      const stop = new AbortController();
      let abortedAt = 0;
      let tokensAfterAbort = 0;
      const mark = inst.log.mark();
      const run = inst.wllama.createChatCompletion({
        ...plan.params,
        stream: true,
        abortSignal: stop.signal,
        onData: (chunk: ChatCompletionChunk) => {
          if (abortedAt && chunk.choices[0]?.delta?.content) tokensAfterAbort++;
          queue.push(chunk as WllamaChunk);
        },
      });
      run.then(
        () => queue.end(),
        (err: unknown) => queue.fail(err),
      );
      const halt = () => {
        if (queue.settled) return;
        abortedAt = performance.now();
        stop.abort();
        // A discarded instance's worker is gone: nothing will answer, so nothing to wait for.
        if (inst.dead) return;
        drained = this.drain(inst, run, () => {
          const ms = Math.round(performance.now() - abortedAt);
          console.debug(
            `[intab] wllama '${req.model}': generation stopped ${tokensAfterAbort} token(s) after the abort (${ms} ms)`,
          );
        });
      };
      try {
        const reply = new ReplyAssembler(plan.reply);
        let usage: ChatCompletionChunk['usage'];
        let timings: WllamaChunk['timings'];
        let finishReason: string | null = null;
        // Nothing arrives while llama.cpp reads the prompt, one batch per step: the first chunk may
        // take one stall bound per batch.
        let wait = this.prefillMs(plan.params.messages as TemplateMessage[]);
        for (;;) {
          const step = await queue.next(wait, signal);
          wait = this.stallMs();
          if (step.kind === 'aborted') return;
          if (step.kind === 'end') break;
          if (step.kind === 'timeout') {
            this.discard(inst, 'no output in time');
            throw mapGenerateError(
              new TimeoutError(`no token within the stall bound (${this.stallMs()} ms a step)`),
              req.model,
              inst.log.trouble(mark),
            );
          }
          if (step.kind === 'error') {
            if ((step.error as Error | null)?.name === 'AbortError' && signal.aborted) return;
            if (isInstanceDead(step.error)) this.discard(inst, 'crashed');
            throw mapGenerateError(step.error, req.model, inst.log.trouble(mark));
          }
          const chunk = step.value;
          usage = chunk.usage ?? usage;
          timings = chunk.timings ?? timings;
          const choice = chunk.choices[0];
          if (!choice) continue;
          finishReason = choice.finish_reason ?? finishReason;
          const delta = choice.delta?.content ?? '';
          const logprobs =
            plan.topLogprobs === null
              ? undefined
              : toTokenLogprobs(choice.logprobs?.content as LlamaTokenProbs[] | undefined, plan.topLogprobs);
          if (delta === '' && !logprobs) continue;
          for (const out of reply.push(delta, logprobs)) yield out;
          if (signal.aborted) return;
        }
        const counted = usage
          ? { prompt_tokens: usage.prompt_tokens, completion_tokens: usage.completion_tokens }
          : undefined;
        for (const out of reply.finish(finishReason, counted)) {
          if (out.type === 'done') {
            out.usage.cached_tokens = timings?.cache_n ?? usage?.prompt_tokens_details?.cached_tokens ?? 0;
          }
          yield out;
        }
      } finally {
        halt();
      }
    } finally {
      if (drained) void (drained as Promise<void>).finally(release);
      else release();
    }
  }

  async embed(
    modelId: string,
    inputs: string[],
    dimensions?: number,
    signal?: AbortSignal,
  ): Promise<EmbedResult> {
    this.registration(modelId);
    if (this.kindOf(modelId) !== 'embeddings') throw unsupportedModel(modelId, 'embeddings');
    if (dimensions !== undefined) {
      throw invalidRequest(
        'dimensions',
        `The model '${modelId}' does not support specifying dimensions.`,
        'unsupported_value',
      );
    }
    this.queue.refuseWhenFull(modelId, this.gate.averageTurnMs);
    const release = await this.queue.queued(this.gate.acquire(signal));
    if (!release) throw embeddingAborted();
    try {
      const inst = await this.loadShared(modelId, undefined, false);
      const mark = inst.log.mark();
      try {
        return await embedEach(
          inputs,
          async (input) => {
            const res = await withTimeout(
              inst.wllama.createEmbedding({ input }),
              this.stallMs(),
              'llama.cpp (embeddings)',
            );
            const data = res.data[0];
            if (!data) throw new Error('llama.cpp returned no embedding.');
            const vector = typeof data.embedding === 'string' ? decodeBase64(data.embedding) : data.embedding;
            return { vector, tokens: res.usage.prompt_tokens };
          },
          signal,
        );
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (err instanceof TimeoutError || isInstanceDead(err)) this.discard(inst, 'embedding failed');
        throw mapGenerateError(err, modelId, inst.log.trouble(mark));
      }
    } finally {
      release();
    }
  }

  async countsExactly(modelId: string): Promise<boolean> {
    return this.liveInstance(modelId) !== null;
  }

  /**
   * llama.cpp has no tokenizer call in wllama 3, so an exact count runs the prompt for one token
   * and reads its `prompt_tokens` (the prompt then stays in the KV cache for the generation). That
   * costs a prefill, so unless `opts.exact` asks for it, a bound is answered when it already fits the
   * context: every token of a byte-level or byte-fallback vocabulary holds at least one byte, so the
   * rendered text's UTF-8 length plus the template's markup bounds the count. Before a load: an
   * estimate.
   */
  async countTokens(
    modelId: string,
    messages: ChatMessage[],
    tools: FunctionToolSpec[] = [],
    opts: CountOptions = {},
  ): Promise<number> {
    this.registration(modelId);
    const inst = this.liveInstance(modelId);
    const family = inst?.facts.family ?? this.facts.get(modelId)?.family;
    // The same template inputs a generation with these tools would hand llama.cpp.
    const inputs = family
      ? templateInputs(messages, { family, system: [], tools, modelId, anyLastTurn: true })
      : null;
    const rendered = inputs?.messages;
    if (!inst || !inputs || !rendered) return estimateTokens(messages, tools);
    if (!opts.exact) {
      const bound = byteBound(rendered);
      if (bound <= inst.runtime.contextSize) return bound;
    }
    const key = `${modelId}\n${JSON.stringify(inputs)}`;
    const known = this.counts.get(key);
    if (known !== undefined) return known;
    const release = (await this.queue.queued(this.gate.acquire())) as () => void;
    try {
      const live = this.liveInstance(modelId);
      if (!live) return estimateTokens(messages, tools);
      const n = await this.countRun(live, inputs);
      this.counts.set(key, n);
      if (this.counts.size > COUNT_CACHE) this.counts.delete(this.counts.keys().next().value as string);
      return n;
    } finally {
      release();
    }
  }

  /** One-token run of `messages`; its `prompt_tokens` is the count. */
  private async countRun(inst: WllamaInstance, { messages, kwargs }: TemplateInputs): Promise<number> {
    const queue = new ChunkQueue<WllamaChunk>();
    const mark = inst.log.mark();
    const run = inst.wllama.createChatCompletion({
      messages,
      ...(kwargs ? { chat_template_kwargs: kwargs } : {}),
      max_tokens: 1,
      temperature: 0,
      stream: true,
      stream_options: { include_usage: true },
      onData: (c: ChatCompletionChunk) => queue.push(c as WllamaChunk),
    });
    run.then(
      () => queue.end(),
      (err: unknown) => queue.fail(err),
    );
    for (;;) {
      const step = await queue.next(this.prefillMs(messages));
      if (step.kind === 'item') {
        const usage = step.value.usage;
        if (usage) {
          await run.catch(() => {});
          return usage.prompt_tokens;
        }
        continue;
      }
      if (step.kind === 'error') {
        const over = overflowTokens(step.error);
        if (over !== null) return over;
        if (isInstanceDead(step.error)) this.discard(inst, 'crashed while counting');
        throw mapGenerateError(step.error, inst.modelId, inst.log.trouble(mark));
      }
      if (step.kind === 'timeout') {
        this.discard(inst, 'no answer while counting');
        throw mapGenerateError(new TimeoutError('counting the prompt got no answer'), inst.modelId);
      }
      throw new ApiError(500, 'server_error', 'server_error', null, 'llama.cpp reported no token count.');
    }
  }

  // ─── loading ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * The live instance of `modelId`, loading it if needed; loads of one model are shared. `locked`
   * says whether the caller already holds the gate (generations do; `load()` does not).
   */
  private loadShared(
    modelId: string,
    onProgress: ((p: LoadProgress) => void) | undefined,
    takeGate: boolean,
  ): Promise<WllamaInstance> {
    const live = this.liveInstance(modelId);
    if (live && !this.pending.has(modelId)) {
      live.lastUsed = Date.now();
      onProgress?.({ progress: 1, text: `Model '${modelId}' is loaded.` });
      return Promise.resolve(live);
    }
    const shared = this.pending.get(modelId);
    if (shared) {
      if (onProgress) shared.listeners.add(onProgress);
      return shared.promise;
    }
    const entry: PendingLoad = { promise: Promise.resolve(null as never), listeners: new Set() };
    if (onProgress) entry.listeners.add(onProgress);
    entry.promise = (async () => {
      const release = takeGate ? await this.gate.acquire() : null;
      try {
        return this.liveInstance(modelId) ?? (await this.loadLocked(modelId, entry.listeners));
      } finally {
        release?.();
        this.pending.delete(modelId);
      }
    })();
    this.pending.set(modelId, entry);
    return entry.promise;
  }

  private async loadLocked(
    modelId: string,
    listeners: Set<(p: LoadProgress) => void>,
  ): Promise<WllamaInstance> {
    const { spec } = this.registration(modelId);
    const report = (progress: number, text: string) => {
      for (const l of listeners) {
        try {
          l({ progress: Math.min(1, Math.max(0, progress)), text });
        } catch {
          // A listener's failure is the listener's; the load goes on.
        }
      }
    };
    this.evictFor(modelId);
    const loadMs = this.opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
    let blobs: Blob[];
    try {
      blobs = spec.files ? [...spec.files] : await this.download(spec, loadMs, report);
    } catch (err) {
      throw mapLoadError(err instanceof StallTimeoutError ? new TimeoutError(err.message) : err, modelId);
    }
    report(0.9, `Reading the GGUF header of '${modelId}'…`);
    let facts: GgufFacts;
    try {
      facts = ggufFacts(await readGgufHeader(blobs[0] as Blob), modelId);
    } catch (err) {
      const why = err instanceof GgufFormatError ? err.message : String(err);
      throw new ApiError(
        500,
        'server_error',
        'model_load_failed',
        null,
        `The model '${modelId}' is not a usable GGUF file: ${why}`,
      );
    }
    this.facts.set(modelId, facts);
    const kind = spec.kind ?? facts.kind;
    const requested = await this.chooseDevice(spec);
    const threads = spec.threads ?? defaultThreads();
    const contextSize = spec.contextSize ?? DEFAULT_CONTEXT;
    report(
      0.92,
      `Starting llama.cpp for '${modelId}' (${requested}, ${threads} thread${threads === 1 ? '' : 's'})…`,
    );
    const log = new LlamaLog();
    let wllama: WllamaLike | null = null;
    try {
      wllama = await this.createWllama({ logger: log.logger, allowOffline: true });
      await withTimeout(
        wllama.loadModel(
          blobs,
          loadParams({
            contextSize,
            device: requested,
            threads,
            embeddings: kind === 'embeddings' ? (facts.pooling ? 'gguf' : 'mean') : false,
            extra: spec.loadOptions,
          }),
        ),
        loadMs,
        'llama.cpp (loading the model)',
      );
    } catch (err) {
      void wllama?.exit().catch(() => {});
      throw mapLoadError(err, modelId, log.trouble());
    }
    const device = log.device() ?? requested;
    const inst = new WllamaInstance(modelId, wllama, log, facts, {
      device,
      requested,
      threads: safe(() => wllama?.getNumThreads() ?? threads, threads),
      multithread: safe(() => wllama?.isMultithread() ?? false, false),
      contextSize: safe(() => wllama?.getLoadedContextInfo().n_ctx ?? contextSize, contextSize),
    });
    this.instances.set(modelId, inst);
    if (spec.url) this.cachedUrls.add(absoluteUrl(spec.url));
    report(1, `Model '${modelId}' is ready (llama.cpp on ${device === 'webgpu' ? 'WebGPU' : 'the CPU'}).`);
    return inst;
  }

  private async download(
    spec: WllamaModelSpec,
    loadMs: number,
    report: (progress: number, text: string) => void,
  ): Promise<Blob[]> {
    const url = absoluteUrl(spec.url as string);
    const abort = new AbortController();
    try {
      return await withStallTimeout((bump) => {
        report(0, `Fetching '${spec.id}'…`);
        return this.fetcher.fetch(url, {
          signal: abort.signal,
          progress: ({ loaded, total }) => {
            bump();
            const mb = (n: number) => (n / 1e6).toFixed(1);
            report(
              total > 0 ? (loaded / total) * 0.9 : 0,
              `Fetching '${spec.id}': ${mb(loaded)} of ${mb(total)} MB`,
            );
          },
        });
      }, loadMs);
    } catch (err) {
      abort.abort();
      throw err;
    }
  }

  /** Makes room for one more instance: the least recently used ones go (`maxLoaded`, default 2). */
  private evictFor(modelId: string): void {
    const old = this.instances.get(modelId);
    if (old) {
      old.kill('reloading');
      this.instances.delete(modelId);
    }
    const max = Math.max(1, this.opts.maxLoaded ?? 2);
    const byAge = [...this.instances.values()].sort((a, b) => a.lastUsed - b.lastUsed);
    while (byAge.length >= max) {
      const victim = byAge.shift() as WllamaInstance;
      victim.kill('unloaded to make room');
      this.instances.delete(victim.modelId);
    }
  }

  private async chooseDevice(spec: WllamaModelSpec): Promise<'cpu' | 'webgpu'> {
    const want = spec.device ?? 'auto';
    if (want === 'cpu') return 'cpu';
    if (want === 'webgpu') return 'webgpu';
    return (await this.webGpuF16()) ? 'webgpu' : 'cpu';
  }

  private webGpuF16(): Promise<boolean> {
    return this.opts.hasWebGpuF16?.() ?? webGpuHas(['shader-f16']);
  }

  private async createWllama(config: WllamaConfig): Promise<WllamaLike> {
    if (this.opts.createWllama) return this.opts.createWllama(config);
    const { Wllama } = await this.module();
    const wasm = this.opts.wasmUrl;
    if (!wasm) throw serviceUnavailable('The wllama engine has no wasmUrl: it cannot start llama.cpp.');
    const wllama = new Wllama({ default: wasm }, config);
    // wllama's "compat" mode (Safari, Firefox) fetches code from a CDN; intab serves only its own
    // origin, so those browsers run the plain build (single file read into memory, no JSPI).
    wllama.setCompat(null);
    return wllama;
  }

  private module(): Promise<WllamaModule> {
    // Lazy: wllama's JavaScript is its own chunk, fetched only when a GGUF model is used.
    this.lib ??= import('@wllama/wllama/esm/index.js').catch((err: unknown) => {
      this.lib = null;
      throw err;
    });
    return this.lib;
  }

  // ─── helpers ─────────────────────────────────────────────────────────────────────────────────────

  /**
   * Waits (bounded) for an aborted run to stop; one that does not stop in time takes its instance
   * with it, so the next request gets a working one.
   */
  private async drain(inst: WllamaInstance, run: Promise<void>, done: () => void): Promise<void> {
    const stopped = await withTimeout(
      run.then(
        () => true,
        () => true,
      ),
      DRAIN_MS,
      'llama.cpp (stopping)',
    ).catch(() => false);
    if (!stopped) this.discard(inst, `did not stop within ${DRAIN_MS} ms of an abort`);
    done();
  }

  private discard(inst: WllamaInstance, reason: string): void {
    inst.kill(reason);
    if (this.instances.get(inst.modelId) === inst) this.instances.delete(inst.modelId);
    for (const key of [...this.counts.keys()])
      if (key.startsWith(`${inst.modelId}\n`)) this.counts.delete(key);
  }

  private liveInstance(modelId: string): WllamaInstance | null {
    const inst = this.instances.get(modelId);
    return inst && !inst.dead ? inst : null;
  }

  private registration(modelId: string): Registered {
    const r = this.registered.get(modelId);
    if (!r) throw modelNotFound(modelId);
    return r;
  }

  private kindOf(modelId: string): 'chat' | 'embeddings' {
    const { spec } = this.registration(modelId);
    return spec.kind ?? this.facts.get(modelId)?.kind ?? 'chat';
  }

  private stallMs(): number {
    return this.opts.stallTimeoutMs ?? DEFAULT_STALL_MS;
  }

  /** The bound on the first chunk: one stall bound per prompt batch llama.cpp must read first, capped. */
  private prefillMs(messages: TemplateMessage[]): number {
    const max = this.opts.maxFirstTokenMs ?? DEFAULT_MAX_FIRST_TOKEN_MS;
    return firstTokenBoundMs(byteBound(messages), this.stallMs(), max);
  }

  private info(modelId: string): ModelInfo | null {
    const r = this.registered.get(modelId);
    if (!r) return null;
    const inst = this.liveInstance(modelId);
    return wllamaListing(r.spec, {
      created: r.created,
      kind: this.kindOf(modelId),
      cached: r.spec.url ? this.cachedUrls.has(absoluteUrl(r.spec.url)) : undefined,
      contextSize: inst?.runtime.contextSize,
      device: inst?.runtime.device,
    });
  }

  private async refreshCached(): Promise<void> {
    try {
      this.cachedUrls = await withTimeout(this.fetcher.cachedUrls(), CACHE_LIST_MS, 'The weight cache');
    } catch {
      // Unknown cache state lists models as not cached; nothing else depends on it.
    }
  }
}

/** A URL made absolute against the origin (workers resolve relative URLs against their script). */
function absoluteUrl(url: string): string {
  const base = globalThis.location ? new URL('/', globalThis.location.href).href : 'http://localhost/';
  return new URL(url, base).href;
}

function decodeBase64(b64: string): number[] {
  return [...new Float32Array(base64ToBytes(b64).buffer)];
}

function safe<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
