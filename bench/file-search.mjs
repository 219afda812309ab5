/**
 * The hosted-tool figures of `npm run bench` (issue 22) beside bench/vector-scan.mjs:
 * - `file_search_turn_ms`: a `responses.create` (`scripted`, `!file_search …`, store: false) with the
 *   `file_search` tool over a vector store of 10k chunks, minus the same request without the tool, in
 *   Node (V8, as the engine worker) over the core loaded through Vite; the store is searched warm
 *   (its vectors in memory, as for a running response) and the first, cold search is reported apart;
 * - `ingest_ms_per_mb_in_chromium`: upload → vector store file `completed` through the service worker;
 * - `pdf_text_ms_per_page`: a 100-page text PDF (40 lines a page) as `input_file.file_data`, read by
 *   pdf.js in the engine worker in Chromium through the real service worker
 *   (`POST /v1/responses/input_tokens`: the same preparation as create), minus the same request
 *   with a one-line text file, per page.
 */
import { createServer } from 'vite';

/** Chunks the turn searches, as the target names them. */
const CHUNKS = 10_000;
/** `static` chunking at its smallest (100 tokens, 50 new per chunk): 10k chunks from ~2.5 MB. */
const CHUNKING = { type: 'static', static: { max_chunk_size_tokens: 100, chunk_overlap_tokens: 50 } };
const TARGET_MS = 50;

function viteFor(root) {
  return createServer({
    root,
    logLevel: 'warn',
    appType: 'custom',
    server: { middlewareMode: true, hmr: false, ws: false },
  });
}

/** Deterministic prose: lines of 12 words from a small vocabulary. */
function text(words) {
  const vocab = [
    'pump',
    'valve',
    'pipe',
    'water',
    'pressure',
    'manual',
    'check',
    'the',
    'of',
    'and',
    'before',
  ];
  let s = 1;
  const out = [];
  for (let i = 0; i < words; i++) {
    s = (Math.imul(s, 1_103_515_245) + 12_345) >>> 0;
    out.push(vocab[s % vocab.length]);
    if (i % 12 === 11) out.push('\n');
  }
  return out.join(' ');
}

/**
 * `file_search_turn_ms`: `{median, p90, runs, target, chunks, with_tool_ms, without_tool_ms, first_search_ms}`.
 *
 * @example
 * results.file_search_turn_ms = await measureFileSearchTurn({ root, runs: 7, stats, log });
 */
export async function measureFileSearchTurn({ root, runs, stats, log }) {
  const vite = await viteFor(root);
  try {
    const { createResponsesServer } = await vite.ssrLoadModule('/src/core/index.ts');
    const { ScriptedEngine } = await vite.ssrLoadModule('/src/engine/scripted/scripted-engine.ts');
    const { MemoryStore } = await vite.ssrLoadModule('/src/store/memory-store.ts');
    // ~50 new o200k tokens per chunk: a little over 50 words each (words of the vocabulary are one token, plus newlines).
    const bytes = new TextEncoder().encode(text(CHUNKS * 48));
    const store = new MemoryStore();
    const server = createResponsesServer({
      engine: new ScriptedEngine(),
      store,
      readFile: async (id) => ({ id, filename: 'manual.txt', purpose: 'assistants', bytes }),
    });
    const call = async (method, path, body) => {
      const res = await server.fetch(
        new Request(`http://bench.invalid/v1${path}`, {
          method,
          headers: { 'content-type': 'application/json' },
          body: body && JSON.stringify(body),
        }),
      );
      const json = await res.json();
      if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };
    log(`file_search turn: indexing ${(bytes.byteLength / 2 ** 20).toFixed(1)} MB into ~${CHUNKS} chunks …`);
    const vs = await call('POST', '/vector_stores', {});
    let file = await call('POST', `/vector_stores/${vs.id}/files`, {
      file_id: 'file-manual',
      chunking_strategy: CHUNKING,
    });
    for (let i = 0; file.status === 'in_progress' && i < 12_000; i++) {
      await new Promise((r) => setTimeout(r, 10));
      file = await call('GET', `/vector_stores/${vs.id}/files/file-manual`);
    }
    if (file.status !== 'completed')
      throw new Error(`ingestion ended ${file.status}: ${file.last_error?.message}`);
    const chunks = (await store.vectorStores.readIndex(vs.id))?.files[0]?.chunks.length ?? 0;
    if (chunks < CHUNKS) throw new Error(`only ${chunks} chunks`);
    const input = '!file_search pump pressure before the valve';
    const withTool = {
      model: 'scripted',
      input,
      store: false,
      tools: [{ type: 'file_search', vector_store_ids: [vs.id] }],
    };
    const without = { model: 'scripted', input, store: false };
    const timed = async (body) => {
      const t0 = performance.now();
      const r = await call('POST', '/responses', body);
      const ms = performance.now() - t0;
      if (r.status !== 'completed') throw new Error(`turn ended ${r.status}`);
      return { ms, r };
    };
    const first = await timed(withTool); // loads the store's vectors into memory
    if (first.r.output[0]?.type !== 'file_search_call') throw new Error('the turn did not search');
    await timed(without);
    const samples = { diff: [], with: [], without: [], search: [] };
    for (let i = 0; i < runs; i++) {
      // Alternating which goes first, so drift in the machine's load falls on both sides.
      const a = i % 2 ? await timed(without) : await timed(withTool);
      const b = i % 2 ? await timed(withTool) : await timed(without);
      const [w, wo] = i % 2 ? [b.ms, a.ms] : [a.ms, b.ms];
      samples.diff.push(w - wo);
      samples.with.push(w);
      samples.without.push(wo);
      const t0 = performance.now();
      await call('POST', `/vector_stores/${vs.id}/search`, {
        query: input.slice('!file_search '.length),
        max_num_results: 20,
      });
      samples.search.push(performance.now() - t0);
    }
    return {
      ...stats(samples.diff, 1),
      target: TARGET_MS,
      chunks,
      compared:
        'scripted, store:false: `!file_search …` with the file_search tool (search, second pass, quoted answer) minus the same input without the tool',
      with_tool_ms: stats(samples.with, 1),
      without_tool_ms: stats(samples.without, 1),
      first_search_turn_ms: Number(first.ms.toFixed(1)),
      search_endpoint_ms: stats(samples.search, 1),
      answer_chars: first.r.output.at(-1)?.content?.[0]?.text.length ?? 0,
    };
  } finally {
    await vite.close();
  }
}

/**
 * `pdf_text_ms_per_page` in Chromium: `{median, p90, runs, pages, pdf_request_ms, text_request_ms}`,
 * on `page`, a page the service worker controls.
 *
 * @example
 * results.pdf_text_ms_per_page = await measurePdfText({ root, page, runs: 5, stats, log });
 */
export async function measurePdfText({ root, page, runs, stats, log }) {
  const vite = await viteFor(root);
  let pdf;
  try {
    const { makePdf } = await vite.ssrLoadModule('/tests/helpers/pdf.ts');
    const line = 'The quick brown fox jumps over the lazy dog, page by page.';
    const pages = Array.from({ length: 100 }, (_, n) =>
      Array.from({ length: 40 }, () => `${n} ${line}`).join('\n'),
    );
    pdf = Buffer.from(makePdf(pages)).toString('base64');
  } finally {
    await vite.close();
  }
  log('pdf_text_ms_per_page: 100 pages in the engine worker …');
  const { pdfMs, textMs } = await page.evaluate(
    async ({ pdf, runs }) => {
      const send = async (file_data, filename) => {
        const t0 = performance.now();
        const res = await fetch('/v1/responses/input_tokens', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'scripted',
            input: [
              {
                role: 'user',
                content: [
                  { type: 'input_text', text: 'hi' },
                  { type: 'input_file', filename, file_data },
                ],
              },
            ],
          }),
        });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
        await res.json();
        return performance.now() - t0;
      };
      const pdfUrl = `data:application/pdf;base64,${pdf}`;
      const textUrl = `data:text/plain;base64,${btoa('one line')}`;
      await send(pdfUrl, 'long.pdf'); // the first PDF fetches pdf.js
      const out = { pdfMs: [], textMs: [] };
      for (let i = 0; i < runs; i++) {
        out.pdfMs.push(await send(pdfUrl, 'long.pdf'));
        out.textMs.push(await send(textUrl, 'short.txt'));
      }
      return out;
    },
    { pdf, runs },
  );
  return {
    ...stats(
      pdfMs.map((p, i) => (p - textMs[i]) / 100),
      2,
    ),
    pages: 100,
    compared:
      'POST /v1/responses/input_tokens with the PDF as file_data minus the same with a one-line text file, per page (pdf.js warm)',
    pdf_request_ms: stats(pdfMs, 1),
    text_request_ms: stats(textMs, 1),
  };
}

/**
 * `ingest_ms_per_mb` as a page sees it in Chromium: `{median, p90, runs, mb}` of the time from
 * `POST /v1/files` (multipart, ~1 MB of text) through the real service worker until the vector store
 * file reads `completed` (o200k chunking at 800/400, `scripted` embeddings, IndexedDB writes), per MB.
 * The first run (o200k's tables load with it) is reported apart.
 *
 * @example
 * results.ingest_ms_per_mb_in_chromium = await measureIngestInPage({ page, runs: 3, stats, log });
 */
export async function measureIngestInPage({ page, runs, stats, log }) {
  log('ingest_ms_per_mb in Chromium: upload → completed …');
  const body = text(180_000); // ~1 MB
  const { samples, first, mb } = await page.evaluate(
    async ({ body, runs }) => {
      const json = async (method, path, payload) => {
        const res = await fetch(`/v1${path}`, {
          method,
          headers: payload instanceof FormData ? {} : { 'content-type': 'application/json' },
          body: payload instanceof FormData ? payload : payload && JSON.stringify(payload),
        });
        const out = await res.json();
        if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(out)}`);
        return out;
      };
      const mb = new TextEncoder().encode(body).byteLength / 2 ** 20;
      const once = async () => {
        const vs = await json('POST', '/vector_stores', {});
        const t0 = performance.now();
        const form = new FormData();
        form.append('purpose', 'assistants');
        form.append('file', new File([body], 'manual.txt', { type: 'text/plain' }));
        const file = await json('POST', '/files', form);
        let vsFile = await json('POST', `/vector_stores/${vs.id}/files`, { file_id: file.id });
        for (let i = 0; vsFile.status === 'in_progress' && i < 6_000; i++) {
          await new Promise((r) => setTimeout(r, 10));
          vsFile = await json('GET', `/vector_stores/${vs.id}/files/${file.id}`);
        }
        if (vsFile.status !== 'completed') throw new Error(`ingestion ended ${vsFile.status}`);
        const ms = performance.now() - t0;
        await json('DELETE', `/vector_stores/${vs.id}`);
        await json('DELETE', `/files/${file.id}`);
        return ms / mb;
      };
      const first = await once();
      const samples = [];
      for (let i = 0; i < runs; i++) samples.push(await once());
      return { samples, first, mb };
    },
    { body, runs },
  );
  return { ...stats(samples, 0), mb: Number(mb.toFixed(2)), first_run_ms_per_mb: Math.round(first) };
}
