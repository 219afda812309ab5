/**
 * Whether an answer to a lazy asset's request is that asset, before the runtime cache keeps it. A
 * hashed name is served cache first forever, so keeping a wrong 200 under it (an SPA host's
 * `index.html` for a file it lacks, a captive portal's page, a cut-short body) would break the
 * feature (PDF input, every GGUF) until the site's data is cleared.
 */

/** The media types each extension's file may come as; other names take any type but HTML. */
const TYPES_BY_EXTENSION: Readonly<Record<string, RegExp>> = {
  js: /^(?:text|application)\/(?:x-)?(?:javascript|ecmascript)$/,
  mjs: /^(?:text|application)\/(?:x-)?(?:javascript|ecmascript)$/,
  // Some hosts still send octet-stream (or nothing) for wasm; the magic number below decides then.
  wasm: /^(?:application\/(?:wasm|octet-stream))?$/,
  json: /^(?:application\/(?:[\w.-]+\+)?json|text\/json)$/,
  zip: /^application\/(?:zip|x-zip-compressed|octet-stream)$/,
};

/** `\0asm`, the first four bytes of every WebAssembly module. */
const WASM_MAGIC = [0x00, 0x61, 0x73, 0x6d];

/**
 * The response's media type (its essence, lowercased, no parameters), or '' when it has none.
 *
 * @example
 * mediaType(new Response('', { headers: { 'content-type': 'Text/JavaScript; charset=utf-8' } })); // 'text/javascript'
 */
export function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/**
 * Whether the headers may be `pathname`'s file: a 200, not HTML, of the type its extension names.
 *
 * @example
 * typeFits('/assets/pdfjs-a1.js', await fetch(url)); // false for an SPA's index.html
 */
export function typeFits(pathname: string, response: Response): boolean {
  if (response.status !== 200) return false;
  const type = mediaType(response);
  if (type === 'text/html' || type === 'application/xhtml+xml') return false;
  const ext = /\.([a-z0-9]+)$/i.exec(pathname)?.[1]?.toLowerCase() ?? '';
  const allowed = TYPES_BY_EXTENSION[ext];
  return allowed ? allowed.test(type) : true;
}

/**
 * Whether the body read is `pathname`'s file: `expectedBytes` long when the build knows its size,
 * and a WebAssembly module for a `.wasm` name.
 *
 * @example
 * bodyFits('/assets/wllama-a1.wasm', bytes, 2_418_012);
 */
export function bodyFits(pathname: string, bytes: Uint8Array, expectedBytes: number | undefined): boolean {
  if (expectedBytes !== undefined && bytes.byteLength !== expectedBytes) return false;
  if (/\.wasm$/i.test(pathname)) return WASM_MAGIC.every((b, i) => bytes[i] === b);
  return true;
}
