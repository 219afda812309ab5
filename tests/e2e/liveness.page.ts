/**
 * Page-side scripts for the liveness tests, run in tests/e2e/pages/liveness.html through
 * `page.evaluate`: self-contained, plain JSON in and out (see api.page.ts).
 */

type Json = Record<string, unknown>;

// A JSON request to the runtime, and a poll of a stored response, as the stored-state tests use.
export { call as callJson, pollStatus } from './stored-state.page';

/**
 * Makes the engine worker spin synchronously for `busyMs` (spin-worker.ts's hook), then, once it
 * spins, creates a response through the `openai` SDK (which retries a 503 twice). Answers the
 * status of every attempt the SDK made, the text, and how long the call took.
 */
export async function createWhileBusy(args: {
  busyMs: number;
  input: string;
}): Promise<{ attempts: number[]; text: string; ms: number }> {
  new BroadcastChannel('intab-test:spin').postMessage({ ms: args.busyMs });
  await new Promise((r) => setTimeout(r, 100));
  const attempts: number[] = [];
  const client = new window.OpenAI({
    baseURL: `${location.origin}/v1`,
    apiKey: 'local',
    dangerouslyAllowBrowser: true,
    maxRetries: 2,
    fetch: async (url: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(url, init);
      attempts.push(res.status);
      return res;
    },
  });
  const started = performance.now();
  const response = await client.responses.create({ model: 'scripted', input: args.input });
  return { attempts, text: response.output_text, ms: performance.now() - started };
}

/** Makes the engine worker spin for ever, as a synchronous infinite loop would. */
export async function spinForever(): Promise<void> {
  new BroadcastChannel('intab-test:spin').postMessage({ ms: Number.POSITIVE_INFINITY });
  await new Promise((r) => setTimeout(r, 100));
}

/**
 * `POST /v1/responses` with `body` until it answers 200, bounded by `ms`: answers the 200's body,
 * every earlier answer as `status retry-header message`, and when the 200 came.
 */
export async function postUntilServed(args: {
  body: Json;
  ms: number;
}): Promise<{ body: Json | null; others: string[]; ms: number }> {
  const started = performance.now();
  const others: string[] = [];
  while (performance.now() - started < args.ms) {
    const res = await fetch('/v1/responses', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(args.body),
    });
    const body = (await res.json()) as Json;
    if (res.status === 200) return { body, others, ms: performance.now() - started };
    const message = (body.error as { message?: string } | undefined)?.message;
    others.push(`${res.status} ${res.headers.get('x-should-retry')} ${message}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { body: null, others, ms: performance.now() - started };
}

/**
 * From the earliest moment the page is controlled (its `controllerchange`, before intab's own
 * handlers run), `GET /v1/models` once: what an app that does not wait for `ready` sees.
 * Installed with `addInitScript`, so it runs before the page's scripts; results land in
 * `window.__earlyModels`.
 */
export function fetchModelsWhenControlled(): void {
  const w = window as unknown as { __earlyModels: Promise<string> };
  w.__earlyModels = new Promise((resolve) => {
    navigator.serviceWorker.addEventListener(
      'controllerchange',
      () => {
        fetch('/v1/models').then(
          async (res) => resolve(res.status === 200 ? '200' : `${res.status} ${await res.text()}`),
          (err: unknown) => resolve(`network error ${String(err)}`),
        );
      },
      { once: true },
    );
  });
}
