/**
 * Page-side scripts for code_interpreter through the real service worker and engine worker (run
 * through `page.evaluate`, plain JSON in and out).
 */

/** Runs in the page: a streamed `POST /v1/responses`, returned as its events' types and the final response. */
export async function streamResponse(
  body: object,
): Promise<{ types: string[]; events: Record<string, unknown>[] }> {
  const res = await fetch('/v1/responses', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  const text = await res.text();
  const events = text
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined && l !== 'data: [DONE]')
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
  return { types: events.map((e) => e.type as string), events };
}
