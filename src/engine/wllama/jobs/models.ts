/**
 * The engine's shared state: registered models, their live llama.cpp instances and GGUF facts,
 * loads in flight, the turns one job at a time takes (and their wait queue), and the per-step bounds.
 */
import { modelNotFound } from '../../../common/api-error';
import { Turns } from '../../turns';
import type { LoadProgress, ModelInfo } from '../../types';
import { byteBound, DEFAULT_MAX_FIRST_TOKEN_MS, firstTokenBoundMs } from '../limits';
import type { TemplateMessage } from '../template-messages';
import type { GgufFacts, WllamaInstance } from '../wllama-instance';
import { wllamaListing } from '../wllama-listing';
import type { WllamaEngineOptions, WllamaModelSpec } from '../wllama-options';
import { absoluteUrl } from './llama-start';

const DEFAULT_STALL_MS = 60_000;

export interface Registered {
  spec: WllamaModelSpec;
  created: number;
}

export interface PendingLoad {
  promise: Promise<WllamaInstance>;
  listeners: Set<(p: LoadProgress) => void>;
}

/**
 * @example
 * const models = new WllamaModels(opts);
 * const inst = models.liveInstance('tiny');
 */
export class WllamaModels {
  readonly registered = new Map<string, Registered>();
  readonly instances = new Map<string, WllamaInstance>();
  readonly facts = new Map<string, GgufFacts>();
  readonly pending = new Map<string, PendingLoad>();
  /** One job at a time; the requests waiting for a turn (or a load), capped at `maxQueue`. */
  readonly turns: Turns;
  /** Exact token counts (model + template inputs → tokens), dropped with their instance. */
  readonly counts = new Map<string, number>();
  cachedUrls = new Set<string>();
  /** Where downloads are kept, once the cache has opened (the engine sets it: its fetcher knows). */
  cacheKind: () => string | null = () => null;

  constructor(readonly opts: WllamaEngineOptions) {
    this.turns = new Turns(opts.maxQueue, 'llama.cpp runs one request at a time');
  }

  /** Makes room for one more instance: the least recently used ones go (`maxLoaded`, default 2). */
  evictFor(modelId: string): void {
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

  discard(inst: WllamaInstance, reason: string): void {
    inst.kill(reason);
    if (this.instances.get(inst.modelId) === inst) this.instances.delete(inst.modelId);
    for (const key of [...this.counts.keys()])
      if (key.startsWith(`${inst.modelId}\n`)) this.counts.delete(key);
  }

  liveInstance(modelId: string): WllamaInstance | null {
    const inst = this.instances.get(modelId);
    return inst && !inst.dead ? inst : null;
  }

  registration(modelId: string): Registered {
    const r = this.registered.get(modelId);
    if (!r) throw modelNotFound(modelId);
    return r;
  }

  kindOf(modelId: string): 'chat' | 'embeddings' {
    const { spec } = this.registration(modelId);
    return spec.kind ?? this.facts.get(modelId)?.kind ?? 'chat';
  }

  stallMs(): number {
    return this.opts.stallTimeoutMs ?? DEFAULT_STALL_MS;
  }

  /** The bound on the first chunk: one stall bound per prompt batch llama.cpp must read first, capped. */
  prefillMs(messages: TemplateMessage[]): number {
    const max = this.opts.maxFirstTokenMs ?? DEFAULT_MAX_FIRST_TOKEN_MS;
    return firstTokenBoundMs(byteBound(messages), this.stallMs(), max);
  }

  info(modelId: string): ModelInfo | null {
    const r = this.registered.get(modelId);
    if (!r) return null;
    const inst = this.liveInstance(modelId);
    return wllamaListing(r.spec, {
      created: r.created,
      kind: this.kindOf(modelId),
      cached: r.spec.url ? this.cachedUrls.has(absoluteUrl(r.spec.url)) : undefined,
      modelCache: this.cacheKind() ?? undefined,
      contextSize: inst?.runtime.contextSize,
      device: inst?.runtime.device,
      // Where llama.cpp runs single-threaded (no isolation) the count is 1, whatever was asked.
      threads: inst ? (inst.runtime.multithread ? inst.runtime.threads : 1) : undefined,
      wasm: inst?.runtime.wasm,
    });
  }
}
