/**
 * The prompt llama.cpp really read, for tests and debugging (`logPrompts`): asked with llama.cpp's
 * own `verbose` flag, which puts a `__verbose` object on the first chunk of the final result; its
 * `prompt` is the prompt's tokens as llama.cpp detokenizes them, special tokens written out. Off by
 * default: a prompt is the user's data, and it never goes into a reply.
 */

/** The console line's prefix; the e2e tests read the lines that start with it. */
export const PROMPT_LOG_PREFIX = '[intab] wllama prompt';

/**
 * The prompt in a chunk that llama.cpp sent with `verbose: true`, or null in any other chunk.
 *
 * @example
 * const prompt = verbosePrompt(chunk); // '<|begin_of_text|><|start_header_id|>user…'
 */
export function verbosePrompt(chunk: unknown): string | null {
  const verbose = (chunk as { __verbose?: { prompt?: unknown } } | null)?.__verbose;
  return typeof verbose?.prompt === 'string' ? verbose.prompt : null;
}

/**
 * Prints the prompt llama.cpp read for `model`, as one console line: the prefix, the model id and
 * the prompt, both as JSON strings (a prompt has newlines of its own).
 *
 * @example
 * logPrompt('tiny', prompt); // [intab] wllama prompt "tiny" "<|begin_of_text|>…"
 */
export function logPrompt(model: string, prompt: string): void {
  console.debug(`${PROMPT_LOG_PREFIX} ${JSON.stringify(model)} ${JSON.stringify(prompt)}`);
}
