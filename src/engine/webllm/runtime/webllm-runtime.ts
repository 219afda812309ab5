/**
 * The state the web-llm engine's jobs share: the lazily imported module, the model records, the
 * one `MLCEngine` and the models it holds. Loading, generation and embeddings all act on it.
 */
import type { AppConfig, InitProgressReport, MLCEngineConfig, ModelRecord } from '@mlc-ai/web-llm';
import { ApiError, modelNotFound, serviceUnavailable } from '../../../common/api-error';
import type { MLCEngineLike, WebLLMEngineOptions } from '../webllm-engine-options';
import { mapGenerateError } from '../webllm-errors';
import { requireXGrammar, type XGrammarLike } from '../webllm-grammar';
import { dedupeRecords } from '../webllm-models';
import { isPipelineLoaded, loadedTokenizer, type TextEncoderLike } from '../webllm-tokens';

type WebLLM = typeof import('@mlc-ai/web-llm');

/**
 * web-llm's module, records and `MLCEngine`, created on first use.
 *
 * @example
 * const runtime = new WebLLMRuntime({ cacheBackend: 'indexeddb' });
 * const mlc = await runtime.engine();
 */
export class WebLLMRuntime {
  private records: ModelRecord[] | null;
  private lib: Promise<WebLLM> | null = null;
  mlc: Promise<MLCEngineLike> | null = null;
  /** The models web-llm holds: one, or a chat model and an embedding model side by side. */
  loaded: string[] = [];
  /** Pairs whose joint `reload` the GPU refused: each loads alone from then on. */
  readonly refusedPairs = new Set<string>();
  onReport: ((r: InitProgressReport) => void) | null = null;

  constructor(readonly opts: WebLLMEngineOptions = {}) {
    this.records = opts.appConfig
      ? dedupeRecords([...opts.appConfig.model_list, ...(opts.models ?? [])])
      : null;
  }

  /** The records known without importing web-llm: null until the prebuilt list is read. */
  knownRecords(): ModelRecord[] | null {
    return this.records;
  }

  /** `modelId`'s record, or OpenAI's 400 `model_not_found`. */
  async recordOf(modelId: string): Promise<ModelRecord> {
    const record = (await this.modelRecords()).find((r) => r.model_id === modelId);
    if (!record) throw modelNotFound(modelId);
    return record;
  }

  xgrammar(): Promise<XGrammarLike> {
    return requireXGrammar(this.opts.xgrammar);
  }

  /** The tokenizer of `modelId` when it is the loaded model; null before its first load. */
  async tokenizerOf(modelId: string): Promise<TextEncoderLike | null> {
    const mlc = this.loaded.includes(modelId) && this.mlc ? await this.mlc : null;
    return mlc ? loadedTokenizer(mlc, modelId) : null;
  }

  /**
   * Maps web-llm's errors; a lost GPU device also forgets the engine, so the next request starts a
   * fresh MLCEngine on a new device and loads the model again. A device lost while decoding reaches
   * us as whatever the disposed runtime throws (web-llm's `device.lost` handler unloads every
   * pipeline; it raises `DeviceLostError` only from `reload`), so a failure that leaves `mlc`
   * without the model's pipeline is a lost device too.
   */
  async mapErrors<T>(p: Promise<T>, modelId: string, mlc?: MLCEngineLike): Promise<T> {
    try {
      return await p;
    } catch (err) {
      let mapped = mapGenerateError(err);
      if (mapped.status === 500 && mlc && !isPipelineLoaded(mlc, modelId)) {
        mapped = serviceUnavailable(
          'The GPU device was lost while generating (often out of GPU memory).',
          'webgpu_device_lost',
        );
      }
      if (mapped.code === 'webgpu_device_lost' || mapped.code === 'model_not_loaded') {
        this.loaded = [];
        if (mapped.code === 'webgpu_device_lost') this.mlc = null;
        throw new ApiError(
          503,
          'server_error',
          mapped.code,
          null,
          `${mapped.message} The model '${modelId}' will load again on the next request.`,
        );
      }
      throw mapped;
    }
  }

  engine(): Promise<MLCEngineLike> {
    this.mlc ??= (async () => {
      const config: MLCEngineConfig = {
        appConfig: await this.appConfig(),
        initProgressCallback: (r) => this.onReport?.(r),
        ...(this.opts.logLevel ? { logLevel: this.opts.logLevel } : {}),
      };
      const create =
        this.opts.createEngine ?? (async (c: MLCEngineConfig) => new (await this.webllm()).MLCEngine(c));
      const mlc = await create(config);
      mlc.setInitProgressCallback?.((r) => this.onReport?.(r));
      return mlc;
    })().catch((err: unknown) => {
      this.mlc = null;
      throw serviceUnavailable(
        `Could not start web-llm: ${err instanceof Error ? err.message : String(err)}`,
      );
    });
    return this.mlc;
  }

  private async appConfig(): Promise<AppConfig> {
    const base = this.opts.appConfig ?? (await this.webllm()).prebuiltAppConfig;
    const cacheBackend = this.opts.cacheBackend ?? base.cacheBackend;
    return { ...base, model_list: await this.modelRecords(), ...(cacheBackend ? { cacheBackend } : {}) };
  }

  async modelRecords(): Promise<ModelRecord[]> {
    if (!this.records) {
      const prebuilt = (await this.webllm()).prebuiltAppConfig.model_list;
      this.records = dedupeRecords([...prebuilt, ...(this.opts.models ?? [])]);
    }
    return this.records;
  }

  private webllm(): Promise<WebLLM> {
    // Lazy: web-llm is 7 MB of JS and WASM glue that Node tests and the scripted path never need.
    this.lib ??= import('@mlc-ai/web-llm').catch((err: unknown) => {
      this.lib = null; // a chunk that failed to load (offline, say) may load on a later try
      throw err;
    });
    return this.lib;
  }
}
