/**
 * Loading a model: one shared load per model, the weights fetched (or the user's files read), the
 * GGUF header checked, room made under `maxLoaded`, and llama.cpp started within the load bound.
 */

import type { LoadModelParams } from '@wllama/wllama/esm/index.js';
import { ApiError } from '../../../common/api-error';
import { StallTimeoutError } from '../../stall-timeout';
import type { LoadProgress } from '../../types';
import { TimeoutError, withTimeout } from '../chunk-queue';
import { GgufFormatError, readGgufHeader } from '../gguf-header';
import { LlamaLog } from '../llama-log';
import { chooseWasmBuild, type WasmBuild } from '../wasm-build';
import { mapLoadError } from '../wllama-errors';
import { defaultThreads, type GgufFacts, ggufFacts, loadParams, WllamaInstance } from '../wllama-instance';
import { DEFAULT_CONTEXT } from '../wllama-listing';
import type { WllamaLike } from '../wllama-options';
import { absoluteUrl, type LlamaStarter } from './llama-start';
import type { PendingLoad, WllamaModels } from './models';

const DEFAULT_LOAD_TIMEOUT_MS = 120_000;

/**
 * @example
 * const loader = new WllamaLoader(models, starter);
 * const inst = await loader.shared('tiny', onProgress, true);
 */
export class WllamaLoader {
  constructor(
    private readonly models: WllamaModels,
    private readonly starter: LlamaStarter,
  ) {}

  /**
   * The live instance of `modelId`, loading it if needed; loads of one model are shared. `locked`
   * says whether the caller already holds the gate (generations do; `load()` does not).
   */
  shared(
    modelId: string,
    onProgress: ((p: LoadProgress) => void) | undefined,
    takeGate: boolean,
  ): Promise<WllamaInstance> {
    const { models } = this;
    const live = models.liveInstance(modelId);
    if (live && !models.pending.has(modelId)) {
      live.lastUsed = Date.now();
      onProgress?.({ progress: 1, text: `Model '${modelId}' is loaded.` });
      return Promise.resolve(live);
    }
    const shared = models.pending.get(modelId);
    if (shared) {
      if (onProgress) shared.listeners.add(onProgress);
      return shared.promise;
    }
    const entry: PendingLoad = { promise: Promise.resolve(null as never), listeners: new Set() };
    if (onProgress) entry.listeners.add(onProgress);
    entry.promise = (async () => {
      const release = takeGate ? await models.turns.acquire() : null;
      try {
        return models.liveInstance(modelId) ?? (await this.locked(modelId, entry.listeners));
      } finally {
        release?.();
        models.pending.delete(modelId);
      }
    })();
    models.pending.set(modelId, entry);
    return entry.promise;
  }

  private async locked(modelId: string, listeners: Set<(p: LoadProgress) => void>): Promise<WllamaInstance> {
    const { models, starter } = this;
    const { spec } = models.registration(modelId);
    const report = (progress: number, text: string) => {
      for (const l of listeners) {
        try {
          l({ progress: Math.min(1, Math.max(0, progress)), text });
        } catch {
          // A listener's failure is the listener's; the load goes on.
        }
      }
    };
    models.evictFor(modelId);
    const loadMs = models.opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
    let blobs: Blob[];
    try {
      blobs = spec.files ? [...spec.files] : await starter.download(spec, loadMs, report);
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
    models.facts.set(modelId, facts);
    const kind = spec.kind ?? facts.kind;
    const requested = await starter.chooseDevice(spec);
    const threads = spec.threads ?? defaultThreads();
    const contextSize = spec.contextSize ?? DEFAULT_CONTEXT;
    report(
      0.92,
      `Starting llama.cpp for '${modelId}' (${requested}, ${threads} thread${threads === 1 ? '' : 's'})…`,
    );
    const params = loadParams({
      contextSize,
      device: requested,
      threads,
      embeddings: kind === 'embeddings' ? (facts.pooling ? 'gguf' : 'mean') : false,
      chatTemplate: facts.chatTemplate,
      extra: spec.loadOptions,
    });
    const modelBytes = blobs.reduce((n, b) => n + b.size, 0);
    let build = chooseWasmBuild(models.opts.simdWasm, { device: requested, modelBytes });
    let started = await this.start(build, params, loadMs, blobs);
    // The SIMD build is a second wasm: a browser that cannot run it (or a crash of its own) falls back
    // to wllama's stock build once; a timeout does not (the stock build would be slower still).
    if (!started.ok && build === 'simd' && !(started.err instanceof TimeoutError)) {
      console.warn(
        `[intab] wllama '${modelId}': the SIMD build failed (${String(started.err)}); using the stock build`,
      );
      build = 'stock';
      started = await this.start(build, params, loadMs, blobs);
    }
    if (!started.ok) throw mapLoadError(started.err, modelId, started.trouble);
    const { wllama, log } = started;
    const device = log.device() ?? requested;
    const inst = new WllamaInstance(modelId, wllama, log, facts, {
      device,
      wasm: build,
      requested,
      threads: safe(() => wllama.getNumThreads(), threads),
      multithread: safe(() => wllama.isMultithread(), false),
      contextSize: safe(() => wllama.getLoadedContextInfo().n_ctx, contextSize),
    });
    models.instances.set(modelId, inst);
    if (spec.url) models.cachedUrls.add(absoluteUrl(spec.url));
    report(1, `Model '${modelId}' is ready (llama.cpp on ${device === 'webgpu' ? 'WebGPU' : 'the CPU'}).`);
    return inst;
  }

  /** One `Wllama` running `build`, its model loaded within `loadMs`; a failed start is ended. */
  private async start(
    build: WasmBuild,
    params: LoadModelParams,
    loadMs: number,
    blobs: Blob[],
  ): Promise<Started> {
    const log = new LlamaLog();
    let wllama: WllamaLike | null = null;
    try {
      wllama = await this.starter.createWllama({ logger: log.logger, allowOffline: true }, build);
      await withTimeout(wllama.loadModel(blobs, params), loadMs, 'llama.cpp (loading the model)');
      return { ok: true, wllama, log };
    } catch (err) {
      void wllama?.exit().catch(() => {});
      return { ok: false, err, trouble: log.trouble() };
    }
  }
}

/** A start's outcome: the running instance, or the failure with what llama.cpp logged about it. */
type Started = { ok: true; wllama: WllamaLike; log: LlamaLog } | { ok: false; err: unknown; trouble: string };

function safe<T>(read: () => T, fallback: T): T {
  try {
    return read();
  } catch {
    return fallback;
  }
}
