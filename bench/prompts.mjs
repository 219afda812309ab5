/** The bench's llama.cpp prompts, shared by the wasm and the native side so both read the same text. */

/**
 * A user prompt of about `n` Llama 3 tokens (each ` w<k>` is two), distinct per `tag` so no run
 * reuses another's KV cache.
 *
 * @example
 * prompt(1024, 3001);
 */
export function prompt(n, tag) {
  const words = [];
  for (let i = 0; words.length * 2 < n - 20; i++) words.push(`w${(i * 7919 + tag) % 1000}`);
  return `Run ${tag}. ${words.join(' ')}`;
}
