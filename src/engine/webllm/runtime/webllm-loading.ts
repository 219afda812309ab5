/**
 * Loading and reloading models into web-llm, the gate already held: one model, or a chat model and
 * an embedding model side by side, bounded by a stall timeout.
 */
import type { ChatOptions, ModelRecord } from '@mlc-ai/web-llm';
import { ApiError } from '../../../common/api-error';
import { StallTimeoutError, withStallTimeout } from '../../stall-timeout';
import type { LoadProgress } from '../../types';
import { convConfigFor } from '../webllm-conv-templates';
import { installByteMeter } from '../webllm-download-meter';
import { mapLoadError } from '../webllm-errors';
import { loadCancelled, untilCancelled } from '../webllm-load-cancel';
import { loadReporter } from '../webllm-load-reports';
import { modelsToLoad, pairKey } from '../webllm-pairing';
import { isPipelineLoaded } from '../webllm-tokens';
import { probeWebGPU, requireFeatures } from '../webllm-webgpu';
import type { WebLLMRuntime } from './webllm-runtime';

const DEFAULT_LOAD_TIMEOUT_MS = 120_000;

/**
 * Makes `modelId` the loaded model, the gate already held. web-llm unloads by itself when the GPU
 * device is lost between requests, so a model it no longer holds is loaded again.
 *
 * @example
 * await ensureLoaded(runtime, 'Qwen3-0.6B-q4f16_1-MLC');
 */
export async function ensureLoaded(rt: WebLLMRuntime, modelId: string): Promise<void> {
  if (rt.loaded.includes(modelId) && rt.mlc && !isPipelineLoaded(await rt.mlc, modelId)) rt.loaded = [];
  if (!rt.loaded.includes(modelId)) await loadLocked(rt, modelId, new Set());
}

/**
 * Loads `modelId`, the gate already held: unknown id, then WebGPU, then the download. An embedding
 * model loads beside the chat model (and a chat model beside the embedding model) where memory
 * allows, so neither evicts the other; a pair the GPU refuses loads the requested model alone.
 *
 * @example
 * await loadLocked(runtime, 'Qwen3-0.6B-q4f16_1-MLC', new Set([(p) => console.log(p.text)]));
 */
export async function loadLocked(
  rt: WebLLMRuntime,
  modelId: string,
  listeners: Set<(p: LoadProgress) => void>,
  signal?: AbortSignal,
): Promise<void> {
  // Cancelled while it waited for its turn at the GPU: nothing was fetched, nothing to stop.
  if (signal?.aborted) throw loadCancelled(modelId);
  const record = await rt.recordOf(modelId);
  requireFeatures(await probeWebGPU(rt.opts.gpu), requiredFeatures(record), modelId);
  if (rt.loaded.includes(modelId)) return;
  const records = await rt.modelRecords();
  const loaded = records.filter((r) => rt.loaded.includes(r.model_id));
  const ids = modelsToLoad(record, loaded, {
    ...(rt.opts.vramBudgetMB !== undefined ? { budgetMB: rt.opts.vramBudgetMB } : {}),
    refused: rt.refusedPairs,
  });
  try {
    await reloadModels(rt, ids, modelId, listeners, signal);
  } catch (err) {
    const final = err instanceof ApiError && /^model_load_(timeout|cancelled)$/.test(err.code ?? '');
    if (ids.length === 1 || final) throw err;
    rt.refusedPairs.add(pairKey(ids));
    await reloadModels(rt, [modelId], modelId, listeners, signal);
  }
}

/** web-llm's `reload` of `ids` (unloading what is loaded first), errors named after `modelId`. */
async function reloadModels(
  rt: WebLLMRuntime,
  ids: string[],
  modelId: string,
  listeners: Set<(p: LoadProgress) => void>,
  signal?: AbortSignal,
): Promise<void> {
  const mlc = await rt.engine();
  if (rt.loaded.length > 0) {
    rt.loaded = [];
    await mlc.unload().catch(() => {}); // a failed unload must not block loading the next model
  }
  const timeoutMs = rt.opts.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS;
  const meter = rt.opts.byteMeter ?? installByteMeter(globalThis);
  let unwatch = (): void => {};
  const cancel = untilCancelled(signal, modelId);
  try {
    const reload = withStallTimeout((bump) => {
      // Silence is what fails a load: no byte received and no progress reported.
      const reporter = loadReporter(listeners);
      unwatch = meter.watch((n) => {
        bump();
        reporter.bytes(n);
      });
      rt.onReport = (r) => {
        bump();
        reporter.report(r);
      };
      if (ids.length > 1) {
        // web-llm wants one ChatOptions per model when it loads several.
        return mlc.reload(
          ids,
          ids.map((id) => chatOptionsFor(id) ?? {}),
        );
      }
      const options = chatOptionsFor(modelId);
      return options ? mlc.reload(modelId, options) : mlc.reload(modelId);
    }, timeoutMs);
    // A cancel wins the race whether or not web-llm's reload settles once aborted (0.2.86 returns
    // quietly from an aborted reload, as if it had loaded).
    await Promise.race([reload, cancel.promise]);
    if (signal?.aborted) throw loadCancelled(modelId);
  } catch (err) {
    if (err instanceof ApiError && err.code === 'model_load_cancelled') {
      // `unload()` aborts web-llm's reload (its AbortController): no shard is fetched after it,
      // the shards already complete stay in web-llm's cache for the next load.
      void Promise.resolve(mlc.unload()).catch(() => {});
      throw err;
    }
    if (!(err instanceof StallTimeoutError)) {
      const mapped = mapLoadError(err, modelId);
      if (mapped.code === 'webgpu_device_lost') rt.mlc = null; // a fresh engine gets a fresh device
      throw mapped;
    }
    void Promise.resolve(mlc.unload()).catch(() => {}); // aborts web-llm's in-flight reload
    throw new ApiError(
      504,
      'server_error',
      'model_load_timeout',
      null,
      `Loading model '${modelId}' received no data and made no progress for ${timeoutMs} ms; check the network and try again.`,
    );
  } finally {
    cancel.dispose();
    unwatch();
    rt.onReport = null;
  }
  rt.loaded = ids;
}

/**
 * The GPU features a record needs: its own `required_features`, or `shader-f16` for f16 builds
 * (MLC's `q4f16_1`, `q0f16`…), which not every prebuilt record declares.
 *
 * @example
 * requiredFeatures(record); // ['shader-f16'] for a q4f16_1 build
 */
export function requiredFeatures(record: ModelRecord): string[] {
  if (record.required_features) return record.required_features;
  return /q\d+f16/.test(`${record.model_id} ${record.model_lib}`) ? ['shader-f16'] : [];
}

/** The `reload` chat options that correct `modelId`'s conversation template; undefined for none. */
function chatOptionsFor(modelId: string): ChatOptions | undefined {
  const convConfig = convConfigFor(modelId);
  return convConfig ? { conv_config: convConfig } : undefined;
}
