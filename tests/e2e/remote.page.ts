/**
 * Page-side scripts for the remote engine in Chromium, run on tests/e2e/pages/options.html (which
 * exposes `window.intab`). Self-contained: each runs in the page through `page.evaluate` and
 * returns plain JSON.
 */

/** Every record of intab's IndexedDB database, as one JSON text. */
export async function idbDump(): Promise<string> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open('intab');
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
  const out: Record<string, unknown[]> = {};
  for (const name of Array.from(db.objectStoreNames)) {
    out[name] = await new Promise<unknown[]>((resolve, reject) => {
      const req = db.transaction(name).objectStore(name).getAll();
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  }
  db.close();
  return JSON.stringify(out);
}

/** `intab.addRemote(spec)`: the listed models, or the error's status and message. */
export async function addRemote(spec: { baseURL: string; apiKey?: string }): Promise<{
  models: { id: string; engine?: string }[] | null;
  error: { status: number | null; message: string } | null;
}> {
  const w = window as unknown as {
    intab: { addRemote(s: unknown): Promise<{ id: string; engine?: string }[]> };
  };
  try {
    return { models: await w.intab.addRemote(spec), error: null };
  } catch (err) {
    const e = err as { status?: number; message?: string };
    return { models: null, error: { status: e.status ?? null, message: String(e.message) } };
  }
}

/** A streamed `POST /v1/responses` read through the service worker: the event types in order. */
export async function streamTypes(body: Record<string, unknown>): Promise<{ types: string[]; text: string }> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const raw = await res.text();
  const events = raw
    .split('\n\n')
    .map((f) => f.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => Boolean(l))
    .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: string });
  return {
    types: events.map((e) => e.type),
    text: events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join(''),
  };
}
