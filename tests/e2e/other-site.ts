/**
 * A second site for cross-site tests: a blank page served at `http://localhost:<port>/`. The harness
 * serves the app at `http://127.0.0.1:<port>`, and a different host is a different site (ports do
 * not count), so this page's requests to the app are cross-site in the browser's eyes.
 *
 * @example
 * const other = await startOtherSite();
 * await attacker.goto(other.url);
 * await other.close();
 */
import { createServer } from 'node:http';

/** The other site's address and its shutdown. */
export interface OtherSite {
  url: string;
  close(): Promise<void>;
}

/** Starts the other site on a free port; every path answers the same blank HTML page. */
export async function startOtherSite(): Promise<OtherSite> {
  const server = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      '<!doctype html><html lang="en"><head><link rel="icon" href="data:,"><title>other site</title></head><body></body></html>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    // Chromium resolves `localhost` to the loopback address itself, with no lookup.
    url: `http://localhost:${port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
