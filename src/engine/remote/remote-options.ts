/**
 * How a page names an OpenAI-compatible server for the remote engine, and the remote engine's
 * bounds, in one place.
 */
import { invalidRequest } from '../../common/api-error';

/** A model the server serves: its id in intab, and (when it differs) the id the server knows. */
export interface RemoteModelSpec {
  /** The id requests to intab use. */
  id: string;
  /** The id sent upstream; default `id`. */
  model?: string;
  /** Context window in tokens, when known; default {@link REMOTE_DEFAULT_CONTEXT}. */
  contextWindow?: number;
  /**
   * web-llm's id for the same model: "local where possible, else remote". The id is then served by
   * web-llm where WebGPU can run that build, and by this server elsewhere (the engine choice that
   * picks web-llm or wllama decides, once per model).
   */
  webllm?: string;
}

/**
 * An OpenAI-compatible server (vLLM, SGLang, Ollama, LM Studio, llama-server, OpenAI itself).
 * `apiKey` and `headers` are secrets: they live in the engine worker's memory only, are sent to
 * `baseURL` only, and never written to the store nor echoed in a response or an error.
 *
 * @example
 * { baseURL: 'http://127.0.0.1:8080/v1', apiKey: 'sk-…', models: ['qwen3-32b'] }
 */
export interface RemoteServerSpec {
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `{baseURL}/chat/completions`). */
  baseURL: string;
  apiKey?: string;
  /** Extra request headers (an org id, a proxy's own header). */
  headers?: Record<string, string>;
  /** The models it serves; absent: listed from the server's `GET {baseURL}/models`. */
  models?: (string | RemoteModelSpec)[];
  /** Bound on the wait for the server's first byte; default {@link REMOTE_FIRST_BYTE_MS}. */
  firstByteTimeoutMs?: number;
}

/**
 * How long a pass may wait for the server's first byte (status line) before it fails with a 504.
 * Generous: a big model on a busy server may read a long prompt for a while before it answers.
 */
export const REMOTE_FIRST_BYTE_MS = 120_000;
/** How long a stream may go without a byte once it started, before it fails with a 504. */
export const REMOTE_STALL_MS = 120_000;
/** Bound on `GET {baseURL}/models` at start-up. */
export const REMOTE_MODEL_LIST_MS = 10_000;
/** Context window assumed for a remote model that says none: the server refuses what does not fit. */
export const REMOTE_DEFAULT_CONTEXT = 131_072;
/** Most characters of an upstream error body quoted in intab's error. */
export const REMOTE_QUOTE_CHARS = 500;
/** Most bytes of a non-streaming upstream body read (a model list, embeddings, an error). */
export const REMOTE_MAX_BODY_BYTES = 64 * 1024 * 1024;
/** Longest SSE line accepted from upstream (one chunk's JSON). */
export const REMOTE_MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Longest SSE event accepted from upstream: all its lines together, as sent, in characters (issue 38 §3.8, issue 43). */
export const REMOTE_MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** Most redirects followed (same origin only). */
export const REMOTE_MAX_REDIRECTS = 5;

/** A server spec with its URL checked and normalized (no trailing slash). */
export interface RemoteServer {
  baseURL: string;
  origin: string;
  apiKey?: string;
  headers: Record<string, string>;
  models?: RemoteModelSpec[];
  firstByteTimeoutMs: number;
}

/**
 * Checks a server spec: an http(s) `baseURL` without credentials in it, string headers, model ids.
 * Throws a 400 on the offending `param`. A `baseURL` on the app's own origin (`appOrigin`, by default
 * the worker's `location.origin`) is refused as MCP's `server_url` is: the service worker would route
 * the engine's requests back to intab, which would call itself without end (issue 38 §3.2).
 *
 * @example
 * normalizeServer({ baseURL: 'http://127.0.0.1:8080/v1/' }).baseURL // → 'http://127.0.0.1:8080/v1'
 */
export function normalizeServer(
  spec: RemoteServerSpec,
  appOrigin: string | null = ownOrigin(),
): RemoteServer {
  if (typeof spec?.baseURL !== 'string') throw invalidRequest('baseURL', 'A remote server needs a baseURL.');
  let url: URL;
  try {
    url = new URL(spec.baseURL);
  } catch {
    throw invalidRequest('baseURL', 'The remote baseURL is not a valid URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw invalidRequest('baseURL', 'The remote baseURL must be http: or https:.');
  // A key in the URL would travel in every error message and log that names the URL.
  if (url.username || url.password)
    throw invalidRequest('baseURL', 'Give the API key as apiKey, not inside the baseURL.');
  if (appOrigin !== null && url.origin === appOrigin)
    throw invalidRequest(
      'baseURL',
      "A remote server may not be intab's own origin: its service worker would send the engine's requests back to the engine.",
    );
  url.hash = '';
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.headers ?? {})) {
    if (typeof v !== 'string') throw invalidRequest(`headers.${k}`, 'Remote headers must be strings.');
    headers[k] = v;
  }
  if (spec.apiKey !== undefined && typeof spec.apiKey !== 'string')
    throw invalidRequest('apiKey', 'The remote apiKey must be a string.');
  const models = spec.models?.map((m, i) => {
    const model = typeof m === 'string' ? { id: m } : m;
    if (typeof model?.id !== 'string' || !model.id)
      throw invalidRequest(`models[${i}]`, 'A remote model needs an id.');
    return model;
  });
  const ms = spec.firstByteTimeoutMs;
  return {
    baseURL: url.href.replace(/\/+$/, ''),
    origin: url.origin,
    apiKey: spec.apiKey || undefined,
    headers,
    models,
    firstByteTimeoutMs: typeof ms === 'number' && ms > 0 ? ms : REMOTE_FIRST_BYTE_MS,
  };
}

/** The origin this code runs on (a worker's or a page's), or null outside a browser. */
function ownOrigin(): string | null {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  return typeof origin === 'string' && origin !== 'null' ? origin : null;
}
