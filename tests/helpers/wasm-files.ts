/**
 * A fake `fetch` for the SIMD builds' files (the engine's `fetchWasm`): each URL answers its glue or
 * a wasm head as a host would, or what a test puts in `answers` (an HTML page, a 404), and every URL
 * asked for is recorded.
 */

/** The first bytes of a real wasm module: magic `\0asm`, version 1, then a section. */
export const WASM_HEAD = Uint8Array.of(0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123);

/** An SPA-fallback host's answer for a path it does not have: its index page, HTTP 200. */
export function htmlPage(): Response {
  return new Response('<!doctype html><html><body>app</body></html>', {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
  });
}

/**
 * @example
 * const files = servedWasm({ '/simd/wllama.wasm': htmlPage });
 * new WllamaEngine({ ..., fetchWasm: files.fetch });
 * files.asked; // ['http://localhost/simd/wllama.js', 'http://localhost/simd/wllama.wasm', …]
 */
export function servedWasm(answers: Record<string, () => Response> = {}) {
  const asked: string[] = [];
  const fetch = async (url: string): Promise<Response> => {
    asked.push(url);
    const path = new URL(url).pathname;
    const answer = answers[path];
    if (answer) return answer();
    if (path.endsWith('.wasm')) {
      return new Response(WASM_HEAD, { headers: { 'content-type': 'application/wasm' } });
    }
    return new Response('var Module = typeof Module != "undefined" ? Module : {};', {
      headers: { 'content-type': 'text/javascript' },
    });
  };
  return { fetch, asked };
}
