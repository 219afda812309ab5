/**
 * Page-side scripts about the runtime's lifecycle (control, reloads). Self-contained, see api.page.ts.
 */

/** Whether a service worker controls this page, and how this document was loaded. */
export function controlState(): {
  controlled: boolean;
  scriptURL: string | null;
  navigationType: string | null;
} {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  return {
    controlled: navigator.serviceWorker.controller !== null,
    scriptURL: navigator.serviceWorker.controller?.scriptURL ?? null,
    navigationType: nav?.type ?? null,
  };
}

/** `GET {path}` and its JSON. */
export async function getJson(path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(path);
  return { status: res.status, body: await res.json() };
}

/** Fetches `path` and says whether anything answered. */
export async function reachNetwork(path: string): Promise<'reached' | 'failed'> {
  return fetch(path, { cache: 'no-store' }).then(
    () => 'reached' as const,
    () => 'failed' as const,
  );
}
