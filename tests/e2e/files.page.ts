/**
 * Page-side script for files.test.ts (self-contained, runs through `page.evaluate`): the official
 * SDK in the page uploads PDFs to `/v1/files` through the real service worker, reads them back, and
 * sends them to `/v1/responses` as `file_id` and as `file_data`; `!transcript` shows the prompt.
 */

/** What the page saw; every field is plain JSON. */
export interface FilesRun {
  uploaded: unknown;
  sameBytes: boolean;
  listed: string[];
  byId: string;
  byData: string;
  scanned: { status: number; error: unknown };
  afterDelete: number;
}

/** Uploads `pdf` (base64) and `scanned` (base64) and sends them to the scripted model. */
export async function filesAndPdf(args: { pdf: string; scanned: string }): Promise<FilesRun> {
  const OpenAI = (window as unknown as { OpenAI: typeof import('openai').default }).OpenAI;
  const client = new OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'intab',
    dangerouslyAllowBrowser: true,
  });
  const bytesOf = (b64: string) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const pdf = bytesOf(args.pdf);
  const uploaded = await client.files.create({
    file: new File([pdf], 'three.pdf', { type: 'application/pdf' }),
    purpose: 'user_data',
  });
  const content = new Uint8Array(await (await client.files.content(uploaded.id)).arrayBuffer());
  const sameBytes = content.length === pdf.length && content.every((b, i) => b === pdf[i]);
  const listed = (await client.files.list()).data.map((f) => f.id);
  const transcript = async (part: Record<string, unknown>) => {
    const res = await client.responses.create({
      model: 'scripted',
      input: [{ role: 'user', content: [{ type: 'input_text', text: '!transcript' }, part as never] }],
    });
    return (JSON.parse(res.output_text) as { content: string }[])[0]?.content ?? '';
  };
  const byId = await transcript({ type: 'input_file', file_id: uploaded.id });
  const byData = await transcript({
    type: 'input_file',
    filename: 'three.pdf',
    file_data: `data:application/pdf;base64,${args.pdf}`,
  });
  const scannedRes = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'scripted',
      input: [
        {
          role: 'user',
          content: [
            {
              type: 'input_file',
              filename: 'scan.pdf',
              file_data: `data:application/pdf;base64,${args.scanned}`,
            },
          ],
        },
      ],
    }),
  });
  const scanned = {
    status: scannedRes.status,
    error: ((await scannedRes.json()) as { error: unknown }).error,
  };
  await client.files.delete(uploaded.id);
  const afterDelete = (await fetch(`/v1/files/${uploaded.id}`)).status;
  return { uploaded, sameBytes, listed, byId, byData, scanned, afterDelete };
}

/**
 * Times `POST /v1/responses/input_tokens` with a PDF (base64) as `file_data` against the same request with a
 * one-line text file, `runs` times each, alternating; returns every duration in ms.
 */
export async function timePdfRequests(args: {
  pdf: string;
  runs: number;
}): Promise<{ pdf: number[]; text: number[] }> {
  const send = async (file_data: string, filename: string) => {
    const t0 = performance.now();
    // input_tokens: the same preparation as create (the PDF is read), without the 4k-token context.
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
  const out = { pdf: [] as number[], text: [] as number[] };
  for (let i = 0; i < args.runs; i++) {
    out.pdf.push(await send(`data:application/pdf;base64,${args.pdf}`, 'long.pdf'));
    out.text.push(await send(`data:text/plain;base64,${btoa('one line')}`, 'short.txt'));
  }
  return out;
}

/** Every cached URL (precache and runtime caches) of a pdf.js chunk (`/assets/pdfjs-…`). */
export async function cachedPdfjs(): Promise<string[]> {
  const urls: string[] = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const req of await cache.keys()) if (req.url.includes('/assets/pdfjs-')) urls.push(req.url);
  }
  return urls;
}
