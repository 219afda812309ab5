import type { WebLLMEngineOptions } from '../engine/webllm';
import type { WllamaBounds, WllamaModelSpec } from '../engine/wllama/wllama-model-spec';

/**
 * What a page can configure in web-llm: self-hosted model records, the weight cache, and its bounds
 * (load silence, queue length, generation stall).
 */
export type WebLLMOptions = Pick<
  WebLLMEngineOptions,
  'models' | 'cacheBackend' | 'loadTimeoutMs' | 'maxQueue' | 'generationStallMs'
>;

/** What a page can configure in the Responses server its engine worker runs. */
export interface ServerOptions {
  /** See `ResponsesServerOptions.streamIdleMs`: a stream left unread this long stops its run. */
  streamIdleMs?: number;
  /**
   * How response bodies reach the service worker: `auto` (default) transfers the stream where the
   * browser can and pipes it over a `MessagePort` where it cannot (Safari up to 26.5); `pipe` always
   * pipes, so the path Safari takes can be tested in any browser.
   */
  responseBodies?: 'auto' | 'pipe';
}

/** How `file_search` and the vector stores embed: `embeddingModel`, the model stores are built with. */
export interface FileSearchOptions {
  embeddingModel?: string;
}

/** `code_interpreter`'s Python sandbox: `timeoutMs`, the wall time of one call (default 30 s). */
export interface CodeInterpreterOptions {
  timeoutMs?: number;
}

/**
 * GGUF models for the llama.cpp engine (wllama) and its bounds. Models given here come by URL (a
 * File cannot travel in the worker's name; `IntabClient.addModel` sends those).
 */
export type WllamaOptions = WllamaBounds & {
  models?: WllamaModelSpec[];
  /** Tests and debugging: the engine logs the prompt llama.cpp read to the console (prompt-log.ts). */
  logPrompts?: boolean;
};

/**
 * That the page has remote servers for the engine worker: they follow as a `remote` message (keys
 * must not ride in the worker's name), and the remote engine's list waits for it.
 */
export interface RemoteFlag {
  servers: number;
}

/** Everything the engine worker takes from the page at start-up. */
export interface EngineWorkerOptions {
  store?: StoreOptions;
  remote?: RemoteFlag;
  webllm?: WebLLMOptions;
  server?: ServerOptions;
  wllama?: WllamaOptions;
  fileSearch?: FileSearchOptions;
  codeInterpreter?: CodeInterpreterOptions;
}

/** Store limits a page can set for the engine worker (see `openIdbStore`). */
export interface StoreOptions {
  ttlMs?: number | null;
  maxResponses?: number | null;
  maxConversations?: number | null;
}

const PREFIX = 'intab-engine';

/**
 * The worker's `name`: its options travel in it because the worker opens its store at start-up,
 * before any message could arrive.
 *
 * @example
 * new Worker(url, { type: 'module', name: engineWorkerName({ store: { ttlMs: 86_400_000 } }) });
 */
export function engineWorkerName(opts: EngineWorkerOptions): string {
  const given = Object.fromEntries(Object.entries(opts).filter(([, v]) => v && Object.keys(v).length > 0));
  return Object.keys(given).length === 0 ? PREFIX : `${PREFIX} ${JSON.stringify(given)}`;
}

/**
 * Reads the options back from `self.name`; anything malformed means defaults.
 *
 * @example
 * const { store } = workerOptions(self.name); // → { store: { ttlMs: 86400000 }, webllm: {} }
 */
export function workerOptions(name: string): {
  store: StoreOptions;
  webllm: WebLLMOptions;
  server: ServerOptions;
  wllama?: WllamaOptions;
  fileSearch?: FileSearchOptions;
  codeInterpreter?: CodeInterpreterOptions;
  remote?: RemoteFlag;
} {
  const json = name.startsWith(`${PREFIX} `) ? name.slice(PREFIX.length + 1) : '';
  let parsed: {
    store?: unknown;
    webllm?: unknown;
    server?: unknown;
    wllama?: unknown;
    fileSearch?: unknown;
    codeInterpreter?: unknown;
    remote?: unknown;
  } = {};
  try {
    parsed = json ? JSON.parse(json) : {};
  } catch {}
  return {
    store: storeOptions(parsed.store),
    webllm: webllmOptions(parsed.webllm),
    server: serverOptions(parsed.server),
    wllama: wllamaOptions(parsed.wllama),
    fileSearch: fileSearchOptions(parsed.fileSearch),
    codeInterpreter: codeInterpreterOptions(parsed.codeInterpreter),
    remote: remoteFlag(parsed.remote),
  };
}

function fileSearchOptions(fileSearch: unknown): FileSearchOptions | undefined {
  const model = (fileSearch as { embeddingModel?: unknown } | null)?.embeddingModel;
  return typeof model === 'string' && model !== '' ? { embeddingModel: model } : undefined;
}

/** `{ timeoutMs }` when it is a positive finite number, else undefined (the default, 30 s). */
function codeInterpreterOptions(ci: unknown): CodeInterpreterOptions | undefined {
  const t = (ci as { timeoutMs?: unknown } | null)?.timeoutMs;
  return typeof t === 'number' && t > 0 && Number.isFinite(t) ? { timeoutMs: t } : undefined;
}

/** A duration in ms (0 turns the bound off), or undefined for anything else. */
function ms(v: unknown): number | undefined {
  return typeof v === 'number' && v >= 0 ? v : undefined;
}

function serverOptions(server: unknown): ServerOptions {
  if (typeof server !== 'object' || server === null) return {};
  const streamIdleMs = ms((server as Record<string, unknown>).streamIdleMs);
  const bodies = (server as Record<string, unknown>).responseBodies;
  return {
    ...(streamIdleMs === undefined ? {} : { streamIdleMs }),
    ...(bodies === 'pipe' || bodies === 'auto' ? { responseBodies: bodies } : {}),
  };
}

function storeOptions(store: unknown): StoreOptions {
  if (typeof store !== 'object' || store === null) return {};
  const pick = (v: unknown) => (typeof v === 'number' && v > 0 ? v : v === null ? null : undefined);
  const s = store as Record<string, unknown>;
  return {
    ttlMs: pick(s.ttlMs),
    maxResponses: pick(s.maxResponses),
    maxConversations: pick(s.maxConversations),
  };
}

function webllmOptions(webllm: unknown): WebLLMOptions {
  if (typeof webllm !== 'object' || webllm === null) return {};
  const w = webllm as Record<string, unknown>;
  const out: WebLLMOptions = {};
  // Records are checked by web-llm itself when a model loads; here only their shape matters.
  if (Array.isArray(w.models)) out.models = w.models.filter((m) => typeof m?.model_id === 'string');
  if (typeof w.cacheBackend === 'string') out.cacheBackend = w.cacheBackend as WebLLMOptions['cacheBackend'];
  if (ms(w.loadTimeoutMs) !== undefined) out.loadTimeoutMs = w.loadTimeoutMs as number;
  if (ms(w.generationStallMs) !== undefined) out.generationStallMs = w.generationStallMs as number;
  if (typeof w.maxQueue === 'number' && w.maxQueue >= 1) out.maxQueue = Math.floor(w.maxQueue);
  return out;
}

function wllamaOptions(wllama: unknown): WllamaOptions | undefined {
  if (typeof wllama !== 'object' || wllama === null) return undefined;
  const w = wllama as Record<string, unknown>;
  const out: WllamaOptions = {};
  // A model needs an id and a URL here; the engine checks the rest when it loads.
  if (Array.isArray(w.models)) {
    out.models = w.models.filter(
      (m): m is WllamaModelSpec => typeof m?.id === 'string' && typeof m?.url === 'string',
    );
  }
  for (const key of [
    'loadTimeoutMs',
    'stallTimeoutMs',
    'maxLoaded',
    'maxQueue',
    'maxFirstTokenMs',
  ] as const) {
    const v = w[key];
    if (typeof v === 'number' && v >= 0) out[key] = v;
  }
  if (w.logPrompts === true) out.logPrompts = true;
  return out;
}

function remoteFlag(remote: unknown): RemoteFlag | undefined {
  const n = (remote as { servers?: unknown } | null)?.servers;
  return typeof n === 'number' && n > 0 ? { servers: n } : undefined;
}
