/**
 * Engines whose timing a test controls: a model list that arrives late, and a model whose load the
 * test drives (progress, success, failure). Both answer like `scripted` once they run.
 *
 * @example
 * const engine = new GatedLoadEngine();
 * const res = rig.call('POST', '/responses', { model: GATED_MODEL, input: 'hi', stream: true });
 * engine.progress(0.5, 'Fetching weights');
 * engine.finishLoad();
 */
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type {
  ChatMessage,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  LoadProgress,
  ModelInfo,
} from '../../src/engine/types';

/**
 * A promise with its settle functions outside.
 *
 * @example
 * const gate = deferred(); setTimeout(gate.resolve, 10); await gate.promise;
 */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Answers as `scripted` does for any model id it lists. */
abstract class ScriptedUnderneath implements Engine {
  protected readonly scripted = new ScriptedEngine();
  abstract models(): ModelInfo[];
  abstract load(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void>;

  generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk> {
    return this.scripted.generate(req, signal);
  }

  countTokens(modelId: string, messages: ChatMessage[], tools?: FunctionToolSpec[]): Promise<number> {
    return this.scripted.countTokens(modelId, messages, tools);
  }

  protected info(id: string): ModelInfo {
    return { ...(this.scripted.models()[0] as ModelInfo), id, owned_by: 'test' };
  }
}

export const LATE_MODEL = 'late-model';

/**
 * Lists {@link LATE_MODEL} only once its list "arrives": `init()` resolves (or rejects) when the
 * test says, as web-llm's prebuilt list arrives with its module.
 *
 * @example
 * const late = new LateListEngine();
 * const engine = new CompositeEngine([new ScriptedEngine(), late]);
 * setTimeout(() => late.arrive(), 20); // or late.fail(new Error('offline'))
 */
export class LateListEngine extends ScriptedUnderneath {
  private readonly list = deferred<void>();
  private arrived = false;
  initCalls = 0;

  models(): ModelInfo[] {
    return this.arrived ? [this.info(LATE_MODEL)] : [];
  }

  init(): Promise<void> {
    this.initCalls++;
    return this.list.promise;
  }

  arrive(): void {
    this.arrived = true;
    this.list.resolve();
  }

  fail(err: Error): void {
    this.list.reject(err);
  }

  async load(modelId: string): Promise<void> {
    if (modelId !== LATE_MODEL) throw new Error(`unexpected load of ${modelId}`);
  }
}

export const GATED_MODEL = 'gated-model';

/** Serves {@link GATED_MODEL}, whose load waits for the test; `preflight` can be made to fail. */
export class GatedLoadEngine extends ScriptedUnderneath {
  private gate = deferred<void>();
  private listeners: ((p: LoadProgress) => void)[] = [];
  loads = 0;
  loaded = false;
  preflightError: Error | null = null;

  models(): ModelInfo[] {
    return [this.info(GATED_MODEL)];
  }

  async preflight(): Promise<void> {
    if (this.preflightError) throw this.preflightError;
  }

  async load(_modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void> {
    this.loads++;
    if (onProgress) this.listeners.push(onProgress);
    await this.gate.promise;
    this.loaded = true;
  }

  progress(progress: number, text: string): void {
    for (const l of this.listeners) l({ progress, text });
  }

  finishLoad(): void {
    this.gate.resolve();
  }

  failLoad(err: Error): void {
    this.gate.reject(err);
    this.gate = deferred<void>();
  }
}

/**
 * A scripted engine that keeps the messages of every request it runs, as the core handed them over
 * (image URLs already read, for instance).
 *
 * @example
 * const { engine, sent } = recordingEngine();
 * makeRig({ engine, fetchFile });
 */
export function recordingEngine(): { engine: ScriptedEngine; sent: ChatMessage[][] } {
  const sent: ChatMessage[][] = [];
  const engine = new ScriptedEngine();
  const generate = engine.generate.bind(engine);
  engine.generate = (req: GenerateRequest, signal: AbortSignal) => {
    sent.push(req.messages);
    return generate(req, signal);
  };
  return { engine, sent };
}
