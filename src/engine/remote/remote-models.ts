/**
 * A server's models as intab lists them: from the page's `models`, or from the server's own
 * `GET {baseURL}/models` (OpenAI's list; vLLM's `max_model_len`, OpenRouter's `context_length` and
 * llama-server's `meta.n_ctx_train` give the context window where present).
 */
import type { ModelInfo } from '../types';
import { upstreamError } from './remote-errors';
import { type FetchLike, readJson, remoteFetch } from './remote-fetch';
import {
  REMOTE_DEFAULT_CONTEXT,
  REMOTE_MODEL_LIST_MS,
  type RemoteModelSpec,
  type RemoteServer,
} from './remote-options';

/** One listed model: what `/v1/models` shows, and where requests for it go. */
export interface RemoteModel {
  info: ModelInfo;
  server: RemoteServer;
  /** The id sent upstream. */
  upstream: string;
}

/** The listing of one model spec. */
export function remoteModel(
  server: RemoteServer,
  spec: RemoteModelSpec,
  ownedBy = 'remote',
  created = 0,
): RemoteModel {
  return {
    server,
    upstream: spec.model ?? spec.id,
    info: {
      id: spec.id,
      owned_by: ownedBy,
      created,
      contextWindow: spec.contextWindow ?? REMOTE_DEFAULT_CONTEXT,
      // The server decides what its model takes; intab refuses nothing it might serve.
      vision: true,
      capabilities: ['chat', 'embeddings'],
      engine: 'remote',
    },
  };
}

function contextOf(m: Record<string, unknown>): number | undefined {
  const meta = typeof m.meta === 'object' && m.meta !== null ? (m.meta as Record<string, unknown>) : {};
  for (const v of [m.max_model_len, m.context_length, m.context_window, meta.n_ctx, meta.n_ctx_train])
    if (typeof v === 'number' && v > 0) return v;
  return undefined;
}

/**
 * The server's models: its `models` when given, else its `GET /models` (bounded by
 * {@link REMOTE_MODEL_LIST_MS}).
 *
 * @example
 * const models = await listRemoteModels(server, fetch); // [{ info: { id: 'tiny', engine: 'remote', … }, … }]
 */
export async function listRemoteModels(server: RemoteServer, fetch: FetchLike): Promise<RemoteModel[]> {
  if (server.models) return server.models.map((m) => remoteModel(server, m));
  const signal = AbortSignal.timeout(REMOTE_MODEL_LIST_MS);
  const listing = {
    ...server,
    firstByteTimeoutMs: Math.min(server.firstByteTimeoutMs, REMOTE_MODEL_LIST_MS),
  };
  const { res } = await remoteFetch({ server: listing, path: '/models', method: 'GET', signal, fetch }).catch(
    (err) => {
      throw signal.aborted
        ? upstreamError(server, `did not list its models within ${REMOTE_MODEL_LIST_MS} ms.`)
        : err;
    },
  );
  const json = (await readJson(res, server, signal)) as { data?: unknown };
  if (!Array.isArray(json?.data)) throw upstreamError(server, "answered GET /models without a 'data' list.");
  return json.data
    .filter((m): m is Record<string, unknown> => typeof m?.id === 'string' && m.id !== '')
    .map((m) =>
      remoteModel(
        server,
        { id: m.id as string, contextWindow: contextOf(m) },
        typeof m.owned_by === 'string' ? m.owned_by : 'remote',
        typeof m.created === 'number' ? m.created : 0,
      ),
    );
}
