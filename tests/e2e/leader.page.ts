/**
 * Page-side scripts for the one-engine-per-origin tests. Each runs in a tab through `page.evaluate`:
 * self-contained, plain JSON in and out.
 */

type Json = Record<string, unknown>;

// A JSON request to the runtime: the same page script the stored-state tests use.
export { call as callJson } from './stored-state.page';

/**
 * Polls `GET /v1/responses/{id}` until its status is one of `until`, bounded by `ms`. Answers other
 * than 200 (a 503 while a new leader takes over) are recorded as `status message` and polled through.
 */
export async function pollThroughFailover(args: {
  id: string;
  until: string[];
  ms: number;
}): Promise<{ body: Json; non200: string[] }> {
  const end = Date.now() + args.ms;
  const non200: string[] = [];
  for (;;) {
    const res = await fetch(`/v1/responses/${args.id}`);
    const body = (await res.json()) as Json;
    if (res.status !== 200) {
      non200.push(`${res.status} ${(body.error as { message?: string } | undefined)?.message}`);
    } else if (args.until.includes(String(body.status))) {
      return { body, non200 };
    }
    if (Date.now() > end) return { body, non200 };
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The event types `GET /v1/responses/{id}?stream=true` replays, in order. */
export async function replayTypes(id: string): Promise<string[]> {
  const text = await (await fetch(`/v1/responses/${id}?stream=true`)).text();
  return text
    .split('\n\n')
    .map((frame) =>
      frame
        .split('\n')
        .find((l) => l.startsWith('event:'))
        ?.slice(6)
        .trim(),
    )
    .filter((type): type is string => Boolean(type));
}
