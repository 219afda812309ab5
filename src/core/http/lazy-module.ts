import { clip, serviceUnavailable } from '../../common/api-error';

/**
 * A module loaded on first use (`import()`), once: code that only some requests need (the Files and
 * Vector Stores APIs, chat completions, containers…) stays out of the engine worker's first chunk, as
 * pdf.js and o200k do. A load that fails (a chunk the network or a stale cache could not give) is an
 * OpenAI-shaped 503 for the request that asked, never a hang, and is not remembered: the next request
 * tries again.
 *
 * @example
 * const chat = lazyModule('chat completions', () => import('../chat'));
 * const res = await (await chat()).createChatCompletion(request, deps);
 */
export function lazyModule<T>(what: string, load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = null;
      const reason = err instanceof Error ? err.message : String(err);
      throw serviceUnavailable(
        `intab could not load its ${what} code: ${clip(reason)}`,
        'module_unavailable',
      );
    });
    return pending;
  };
}
