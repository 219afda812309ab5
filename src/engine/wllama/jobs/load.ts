/**
 * Loading a model: one shared load per model, the weights fetched (or the user's files read), the
 * GGUF header checked, room made under `maxLoaded`, and llama.cpp started within the load bound.
 */

import type { LoadModelParams } from '@wllama/wllama/esm/index.js';
import { ApiError } from '../../../common/api-error';
import { StallTimeoutError } from '../../stall-timeout';
import type { LoadProgress } from '../../types';
import { TimeoutError, withTimeout } from '../chunk-queue';
import { checkGgufComplete, GgufFormatError, type GgufHeader, readGgufHeader } from '../gguf-header';
import { WASM_START_MS, watchWasmStart } from '../limits';
import { LlamaLog } from '../llama-log';
import {
  allBuildsFailed,
  type BuildFailure,
  chooseWasmBuilds,
  hasWasmSimd,
  threadSupport,
  type WasmBuild,
} from '../wasm-build';
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
      facts = ggufFacts(await readCompleteGguf(blobs), modelId);
    } catch (err) {
      // A cached copy that is not a whole GGUF would fail every load after this one: the next
      // download replaces it.
      if (spec.url && err instanceof GgufFormatError) {
        models.cachedUrls.delete(absoluteUrl(spec.url));
        await starter.forget(absoluteUrl(spec.url));
      }
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
    const contextSize = spec.contextSize ?? DEFAULT_CONTEXT;
    const modelBytes = blobs.reduce((n, b) => n + b.size, 0);
    const { simdWasm: simd, simdSingleThreadWasm: simdSingleThread } = models.opts;
    const support = (models.opts.threadSupport ?? threadSupport)();
    const wasmSimd = hasWasmSimd(models.opts.validateWasm);
    const builds = chooseWasmBuilds(
      { simd, simdSingleThread },
      { device: requested, modelBytes },
      support,
      wasmSimd,
    );
    // Each build in turn until one starts: a browser that cannot run one (no SharedArrayBuffer for the
    // threaded glue, no Memory64 for the stock wasm in WebKit), files that are not the build's, a wasm
    // that does not start within its own bound, or a crash of its own moves on to the next. A timeout
    // of the load does not: the next build would be no faster, and the load bound is spent.
    const failures: BuildFailure[] = [];
    let started: Extract<Started, { ok: true }> | null = null;
    let build: WasmBuild = 'stock';
    let threads = 1;
    for (const candidate of builds) {
      build = candidate;
      // The single-threaded build has no pthreads: it runs 1 thread whatever the spec asks.
      threads = build === 'simd-st' ? 1 : (spec.threads ?? defaultThreads());
      report(
        0.92,
        `Starting llama.cpp for '${modelId}' (${requested}, ${build}, ${threads} thread${threads === 1 ? '' : 's'})…`,
      );
      const params = loadParams({
        contextSize,
        device: requested,
        threads,
        embeddings: kind === 'embeddings' ? (facts.pooling ? 'gguf' : 'mean') : false,
        chatTemplate: facts.chatTemplate,
        extra: spec.loadOptions,
      });
      const last = candidate === builds.at(-1);
      const attempt = await this.start(
        build,
        params,
        { loadMs, startMs: last ? null : WASM_START_MS },
        blobs,
      );
      if (attempt.ok) {
        started = attempt;
        break;
      }
      failures.push({ build, err: attempt.err, trouble: attempt.trouble });
      if (attempt.err instanceof TimeoutError) break;
      if (!last)
        console.warn(
          `[intab] wllama '${modelId}': the ${build} build failed (${String(attempt.err)}); trying the next`,
        );
    }
    if (!started) {
      const last = failures.at(-1) as BuildFailure;
      // One build tried, or a timeout: that error as it is; else every build and its cause.
      if (failures.length === 1 || last.err instanceof TimeoutError)
        throw mapLoadError(last.err, modelId, last.trouble);
      throw allBuildsFailed(modelId, failures);
    }
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

  /**
   * One `Wllama` running `build`, its files checked, its wasm started within `startMs` (null: no
   * bound of its own, for the last build) and its model loaded within `loadMs`; a failed start is
   * ended (limits/wasm-start.ts).
   */
  private async start(
    build: WasmBuild,
    params: LoadModelParams,
    bounds: { loadMs: number; startMs: number | null },
    blobs: Blob[],
  ): Promise<Started> {
    const log = new LlamaLog();
    let wllama: WllamaLike | null = null;
    const started = watchWasmStart(log, bounds.startMs);
    try {
      await this.starter.checkBuild(build);
      wllama = await this.starter.createWllama({ logger: log.logger, allowOffline: true }, build);
      const load = Promise.race([wllama.loadModel(blobs, params), started.failed]);
      await withTimeout(load, bounds.loadMs, 'llama.cpp (loading the model)');
      return { ok: true, wllama, log };
    } catch (err) {
      void wllama?.exit().catch(() => {});
      return { ok: false, err, trouble: log.trouble() };
    } finally {
      started.stop();
    }
  }
}

/**
 * The first shard's header, once every shard is known to hold the bytes its tensors need: a file cut
 * inside its weights is refused here, before llama.cpp loads it (it would load and then fail each
 * request, saying nothing of the cut).
 */
async function readCompleteGguf(blobs: Blob[]): Promise<GgufHeader> {
  const header = await readGgufHeader(blobs[0] as Blob);
  checkGgufComplete(header, (blobs[0] as Blob).size);
  // A split model's other shards are whole GGUF files with small headers of their own.
  for (const shard of blobs.slice(1)) checkGgufComplete(await readGgufHeader(shard, 1 << 16), shard.size);
  return header;
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
