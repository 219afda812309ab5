/**
 * web-llm's downloaded weights in this browser, for the storage list: web-llm 0.2.86 keeps them in
 * the Cache API (its default backend) in caches `webllm/model` (weight shards, tokenizer) and
 * `webllm/config` (mlc-chat-config.json), keyed by `https://huggingface.co/mlc-ai/<model>/resolve/main/…`.
 * Listing sums a model's entries; deleting removes them (the compiled library in `webllm/wasm` is
 * shared by builds and small, so it stays).
 */

const WEIGHTS = 'webllm/model';
const CONFIG = 'webllm/config';
/** The model's repository in a cached URL: the `<model>` of `…/mlc-ai/<model>/resolve/…`. */
const REPO = /\/([^/]+)\/resolve\/[^/]+\//;

/** One web-llm model kept in this browser. */
export interface WebLlmCached {
  /** The weights' repository name, which is the model id (a `-1k` build shares its full build's). */
  model: string;
  bytes: number;
}

/**
 * The web-llm models whose weights are cached, with their sizes.
 *
 * @example
 * await listWebLlmCached(); // [{ model: 'Qwen3-0.6B-q4f16_1-MLC', bytes: 351_000_000 }]
 */
export async function listWebLlmCached(): Promise<WebLlmCached[]> {
  if (!(await caches.has(WEIGHTS))) return [];
  const cache = await caches.open(WEIGHTS);
  const sizes = new Map<string, number>();
  for (const request of await cache.keys()) {
    const model = REPO.exec(request.url)?.[1];
    if (!model) continue;
    const res = await cache.match(request);
    // Content-Length when the entry kept it, else the body's size (a disk-backed Blob: not read).
    const bytes = Number(res?.headers.get('content-length')) || (await res?.blob())?.size || 0;
    sizes.set(model, (sizes.get(model) ?? 0) + bytes);
  }
  return [...sizes].map(([model, bytes]) => ({ model, bytes }));
}

/**
 * Deletes a web-llm model's cached weights and config; answers how many entries went.
 *
 * @example
 * await deleteWebLlmCached('Qwen3-0.6B-q4f16_1-MLC');
 */
export async function deleteWebLlmCached(model: string): Promise<number> {
  let deleted = 0;
  for (const name of [WEIGHTS, CONFIG]) {
    if (!(await caches.has(name))) continue;
    const cache = await caches.open(name);
    for (const request of await cache.keys())
      if (REPO.exec(request.url)?.[1] === model && (await cache.delete(request))) deleted++;
  }
  return deleted;
}
