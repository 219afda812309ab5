import { TrieRouter } from 'hono/router/trie-router';
import { ApiError, clip, invalidRequest, notFound, toErrorResponse } from '../common/api-error';
import type { Engine } from '../engine/types';
import type { ResponseStore } from '../store/types';
import { ContainerRegistry } from './containers/registry';
import { CONTAINER_ROUTES } from './containers/route-shape';
import { fileReaderOver } from './files/file-reader';
import type { FileContentReader, FileSearchBackend, McpConnector, PythonRunner } from './hosted';
import { routePath } from './http/api-paths';
import { DEFAULT_MAX_BODY_BYTES } from './http/capped-read';
import { lazyModule, lazyRoutes } from './http/lazy-module';
import type { FileFetcher } from './inputs/input-files';
import { getModel, listModels } from './models';
import {
  cancelResponse,
  compactResponse,
  countInputTokens,
  createResponse,
  deleteResponse,
  failInterrupted,
  LiveRuns,
  listInputItems,
  type RunLocks,
  retrieveResponse,
} from './responses';
import { listStorage } from './storage-routes';
import { type LoadedVectorStores, vectorStoreRoutes } from './vector-stores/routes';
import type { VectorStoreOptions } from './vector-stores/surface';

export interface ResponsesServerOptions {
  engine: Engine;
  store: ResponseStore;
  /** Clock in epoch ms; tests inject a fixed one. */
  now?: () => number;
  /** Request bodies above this are refused with 413. Default 16 MiB. */
  maxBodyBytes?: number;
  /**
   * See DESIGN.md §4: past this, a non-streaming answer sends its headers early. Default
   * {@link DEFAULT_JSON_HOLD_MS}; keep it well below the service worker's deadline (sw/timing.ts).
   */
  jsonHoldMs?: number;
  /** How often streamed events are written to the store, in ms. Default 100. */
  eventFlushMs?: number;
  /**
   * A direct stream (or chat completion stream) whose reader has taken nothing for this long while
   * events wait is abandoned: the run stops and is stored `cancelled`, as if the reader had
   * cancelled. Chromium does not cancel the engine worker's stream when the service worker reading it
   * is stopped mid-stream. Default {@link DEFAULT_STREAM_IDLE_MS}; 0 never gives up on a reader.
   */
  streamIdleMs?: number;
  /** Cross-tab liveness of runs (Web Locks in the browser), for {@link ResponsesServer.recover}. */
  runLocks?: RunLocks;
  /**
   * Reads `input_file.file_url` values that are `blob:` or same-origin URLs (the worker passes its
   * `fetch`). Without it only `data:` URLs are readable, and other file URLs get a 400.
   */
  fetchFile?: FileFetcher;
  /**
   * The vector stores behind the `file_search` tool. Default: the ones `/v1/vector_stores` serves
   * over `store`. Tests may pass a double.
   */
  fileSearch?: FileSearchBackend;
  /**
   * Opens remote MCP servers for the `mcp` tool. Default: `@modelcontextprotocol/client` over
   * Streamable HTTP (imported on first use), with the bounds of `core/hosted/budgets.ts`.
   */
  mcp?: McpConnector;
  /**
   * Runs Python for `code_interpreter` and `/v1/containers` (the engine worker's SandboxHost);
   * without it the tool is a 400 and the container routes are not served.
   */
  python?: PythonRunner;
  /** Reads `input_file.file_id`; default: the files `/v1/files` serves over `store`. */
  readFile?: FileContentReader;
  /** How vector stores embed (`embeddingModel`) and read files; see {@link VectorStoreOptions}. */
  vectorStores?: VectorStoreOptions;
}

/** How long a non-streaming request may wait for its status line before its headers go out early. */
export const DEFAULT_JSON_HOLD_MS = 60_000;

/**
 * How long a stream may go unread before its run stops. A reader that renders as it reads (even a
 * slow typewriter effect) reads many times a second; a dead one never reads again.
 */
export const DEFAULT_STREAM_IDLE_MS = 20_000;

/** The portable Responses server: a Fetch handler and nothing else. */
export interface ResponsesServer {
  fetch(request: Request): Promise<Response>;
  /**
   * Marks `failed` the stored responses whose runner died, and queues again the vector store files
   * left mid-indexing; call once when the runtime starts.
   */
  recover(): Promise<number>;
}

type Params = Record<string, string>;
type Handler = (request: Request, url: URL, params: Params) => Promise<Response>;
type Route = { path: string; methods: Record<string, Handler> };

/**
 * Creates the Responses server: a pure `(Request) => Promise<Response>` over an injected engine and
 * store. It runs unchanged in the engine worker, in Node tests and in the bench. Besides the
 * Responses routes it serves `/v1/chat/completions`, `/v1/embeddings` and the models, and answers
 * every route without `/v1` as well (`/responses`, `/chat/completions`…), for clients whose
 * `baseURL` is the bare origin.
 *
 * @example
 * const server = createResponsesServer({ engine: new ScriptedEngine(), store: new MemoryStore() });
 * const res = await server.fetch(new Request('http://localhost/v1/models'));
 */
export function createResponsesServer(opts: ResponsesServerOptions): ResponsesServer {
  const { engine, store } = opts;
  const live = new LiveRuns();
  const readFile = opts.readFile ?? (store.files && fileReaderOver(store.files));
  // Routes only some pages use load their code on first use (issue 36: a scripted-only page's
  // JavaScript budget); a failed load is a 503 for that request (lazy-module.ts).
  const chat = lazyModule('chat completions', () => import('./chat'));
  const embeddings = lazyModule('embeddings', () => import('./embeddings'));
  const files = lazyModule('Files API', () => import('./files/file-routes'));
  const conversations = lazyModule('Conversations API', () => import('./conversations'));
  const containers = lazyModule('Containers API', () => import('./containers/routes'));
  const vectorStores = lazyModule('vector stores', async (): Promise<LoadedVectorStores> => {
    const h = await import('./vector-stores');
    const s = new h.VectorStoreSurface({
      engine,
      store,
      now: opts.now ?? Date.now,
      maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      readFile,
      vectorStores: opts.vectorStores,
    });
    return { h, s, backend: h.createFileSearchBackend(s) };
  });
  const python = opts.python ? new ContainerRegistry(opts.python, opts.now) : undefined;
  const deps = {
    engine,
    store,
    live,
    now: opts.now ?? Date.now,
    maxBodyBytes: opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    jsonHoldMs: opts.jsonHoldMs ?? DEFAULT_JSON_HOLD_MS,
    eventFlushMs: opts.eventFlushMs ?? 100,
    streamIdleMs: opts.streamIdleMs ?? DEFAULT_STREAM_IDLE_MS,
    runLocks: opts.runLocks,
    fetchFile: opts.fetchFile,
    fileSearch: opts.fileSearch ?? lazyFileSearch(vectorStores),
    mcp: opts.mcp ?? lazyMcpConnector(),
    python,
    readFile,
    // Deleting a file takes it out of every vector store too (and stops its indexing midway).
    onFileDeleted: async (fileId: string) => {
      await (await vectorStores()).s.forgetFile(fileId);
    },
  };
  // Routes that name a model first wait for the engine's model list (the engine bounds the wait):
  // right after start-up a model whose list was still loading must not read as unknown.
  const modelsFirst =
    (handler: Handler): Handler =>
    async (request, url, params) => {
      await engine.init?.().catch(() => {});
      return handler(request, url, params);
    };
  const routes: Route[] = [
    // Route paths drop `/v1` (see routePath): `/v1/models` and `/models` are one route.
    { path: '/models', methods: { GET: modelsFirst(async () => listModels(engine)) } },
    {
      path: '/models/:id',
      methods: { GET: modelsFirst(async (_r, _u, { id }) => getModel(engine, id as string)) },
    },
    {
      path: '/responses',
      methods: { POST: modelsFirst((request) => createResponse(request, deps)) },
    },
    {
      path: '/chat/completions',
      methods: { POST: modelsFirst(async (request) => (await chat()).createChatCompletion(request, deps)) },
    },
    {
      path: '/embeddings',
      methods: { POST: modelsFirst(async (request) => (await embeddings()).createEmbeddings(request, deps)) },
    },
    {
      path: '/responses/compact',
      methods: { POST: modelsFirst((request) => compactResponse(request, deps)) },
    },
    {
      path: '/responses/input_tokens',
      methods: { POST: modelsFirst((request) => countInputTokens(request, deps)) },
    },
    {
      path: '/responses/:id',
      methods: {
        GET: (_r, url, { id }) => retrieveResponse(store, live, id as string, url),
        DELETE: (_r, _u, { id }) => deleteResponse(store, live, id as string),
      },
    },
    { path: '/intab/storage', methods: { GET: (_r, url) => listStorage(store, url) } },
    {
      path: '/conversations',
      methods: { POST: async (request) => (await conversations()).createConversation(request, deps) },
    },
    {
      path: '/conversations/:id',
      methods: {
        GET: async (_r, _u, { id }) => (await conversations()).getConversation(store, id as string),
        POST: async (request, _u, { id }) =>
          (await conversations()).updateConversation(request, id as string, deps),
        DELETE: async (_r, _u, { id }) => (await conversations()).deleteConversation(store, id as string),
      },
    },
    {
      path: '/conversations/:id/items',
      methods: {
        GET: async (_r, url, { id }) => (await conversations()).listItems(store, id as string, url),
        POST: async (request, _u, { id }) => (await conversations()).addItems(request, id as string, deps),
      },
    },
    {
      path: '/conversations/:id/items/:item',
      methods: {
        GET: async (_r, _u, { id, item }) =>
          (await conversations()).getItem(store, id as string, item as string),
        DELETE: async (_r, _u, { id, item }) =>
          (await conversations()).deleteItem(store, id as string, item as string),
      },
    },
    {
      path: '/files',
      methods: {
        POST: async (request) => (await files()).createFile(request, deps),
        GET: async (_r, url) => (await files()).listFiles(deps, url),
      },
    },
    {
      path: '/files/:id',
      methods: {
        GET: async (_r, _u, { id }) => (await files()).retrieveFile(deps, id as string),
        DELETE: async (_r, _u, { id }) => (await files()).deleteFile(deps, id as string),
      },
    },
    {
      path: '/files/:id/content',
      methods: { GET: async (_r, _u, { id }) => (await files()).fileContent(deps, id as string) },
    },
    {
      path: '/responses/:id/cancel',
      methods: { POST: (_r, _u, { id }) => cancelResponse(store, live, id as string) },
    },
    {
      path: '/responses/:id/input_items',
      methods: { GET: (_r, url, { id }) => listInputItems(store, id as string, url) },
    },
    ...vectorStoreRoutes(vectorStores),
    ...(python
      ? lazyRoutes(CONTAINER_ROUTES, async () => (await containers()).containerRoutes(python, deps))
      : []),
  ];

  // hono's TrieRouter: one walk over the path's segments, so matching is linear in the path (the
  // regex table it replaces was quadratic in trailing slashes). Every route is filed under ALL and
  // carries its own method table, so a known path with another method is told apart as a 405.
  const router = new TrieRouter<Route>();
  for (const route of routes) router.add('ALL', route.path, route);

  return {
    recover: () => {
      // Files a stopped runtime left mid-indexing are queued again, in the background.
      void resumeIndexing(store, vectorStores).catch(() => {});
      return failInterrupted(store, opts.runLocks);
    },
    async fetch(request: Request): Promise<Response> {
      try {
        const url = new URL(request.url);
        const [matches] = router.match(request.method, routePath(url.pathname));
        const [route, raw] = (matches[0] ?? []) as [Route?, Params?];
        if (!route) throw notFound(`Invalid URL (${request.method} ${clip(url.pathname)})`);
        const handler = route.methods[request.method.toUpperCase()];
        if (!handler) {
          throw new ApiError(
            405,
            'invalid_request_error',
            'method_not_allowed',
            null,
            `Invalid method for URL (${clip(request.method)} ${clip(url.pathname)}).`,
          );
        }
        return await handler(request, url, decodeParams(raw ?? {}, request.method, url.pathname));
      } catch (err) {
        return toErrorResponse(err);
      }
    },
  };
}

/** Path ids as the handlers take them: percent-decoded, or a 400 for a malformed escape (never a 500). */
function decodeParams(raw: Params, method: string, pathname: string): Params {
  const out: Params = {};
  for (const [name, value] of Object.entries(raw)) {
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      throw invalidRequest(
        null,
        `Invalid URL (${clip(method)} ${clip(pathname)}): the path has a malformed percent-escape.`,
      );
    }
  }
  return out;
}

/** `file_search` over the vector stores, their code loaded by the first search (or store check). */
function lazyFileSearch(load: () => Promise<LoadedVectorStores>): FileSearchBackend {
  return {
    checkStores: async (ids, param) => (await load()).backend.checkStores(ids, param),
    search: async (query) => (await load()).backend.search(query),
  };
}

/**
 * Queues again the files a stopped runtime left mid-indexing. The vector stores' code is loaded only
 * when there is a store to look at: a store without vector stores, or with none yet, needs nothing.
 */
async function resumeIndexing(store: ResponseStore, load: () => Promise<LoadedVectorStores>): Promise<void> {
  if (!store.vectorStores || (await store.vectorStores.listStores()).length === 0) return;
  await (await load()).s.resume();
}

/** The default MCP connector (hosted/mcp-connection.ts), its code loaded by the first server it opens. */
function lazyMcpConnector(): McpConnector {
  const load = lazyModule('MCP client', async () => (await import('./hosted/mcp-connection')).mcpConnector());
  return { open: async (address, signal) => (await load()).open(address, signal) };
}
