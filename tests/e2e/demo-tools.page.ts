/**
 * Page-side scripts for the demo's hosted-tool tests (demo-mcp.test.ts, demo-python.test.ts), run
 * through `page.evaluate` on the demo page itself (`/`): what elements the document holds, and
 * whether any markup fed through a tool ran. Plain JSON in and out.
 */

/** The tag names of every element in the document (or under `selector`), counted. */
export function tagCounts(selector: string | null): Record<string, number> {
  const root = selector ? document.querySelector(selector) : document;
  const counts: Record<string, number> = {};
  for (const node of root?.getElementsByTagName('*') ?? [])
    counts[node.tagName] = (counts[node.tagName] ?? 0) + 1;
  return counts;
}

/** What the payloads set when they run (`window.__xss = N`); undefined while none has. */
export function xssFlag(): unknown {
  return (window as unknown as { __xss?: unknown }).__xss;
}

/** Every element with an inline event handler attribute (`onerror`, `onload`, …), by tag name. */
export function handlerElements(): string[] {
  return [...document.getElementsByTagName('*')]
    .filter((node) => [...node.attributes].some((a) => a.name.toLowerCase().startsWith('on')))
    .map((node) => node.tagName);
}

/** The `src` of every `<img>` under `selector`, with its decoded width (0 when it did not decode). */
export async function imagesUnder(selector: string): Promise<{ src: string; width: number }[]> {
  const imgs = [...document.querySelectorAll<HTMLImageElement>(`${selector} img`)];
  return Promise.all(
    imgs.map(async (img) => {
      await img.decode().catch(() => {});
      return { src: img.src, width: img.naturalWidth };
    }),
  );
}
