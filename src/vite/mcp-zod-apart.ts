import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';

/** The id suffix of zod's modules as the MCP client imports them: a copy apart from the core's. */
const TAG = '?intab-mcp-zod';

/**
 * Gives the MCP client (a lazy chunk of the engine worker, loaded by the first response that offers
 * an `mcp` tool) its own copy of zod. Without it, the zod modules the MCP client (classic zod) and
 * the core's request schemas (`zod/mini`) share sit in one chunk that the engine worker imports at
 * start-up, with every schema type and string format classic zod keeps: ~60 kB that a page which
 * never uses MCP would load (issue 36). Each zod module the MCP client reaches, directly or through
 * zod's own imports, resolves to the same file under another id, so the bundler keeps it apart.
 *
 * @example
 * worker: { plugins: () => [mcpZodApart()] }
 */
export function mcpZodApart(): Plugin {
  return {
    name: 'intab:mcp-zod-apart',
    resolveId: {
      order: 'pre',
      async handler(source, importer, options) {
        if (!importer) return null;
        const tagged = importer.endsWith(TAG);
        const fromMcp = importer.includes('/@modelcontextprotocol/') && /^zod(\/|$)/.test(source);
        if (!tagged && !fromMcp) return null;
        const resolved = await this.resolve(source, tagged ? importer.slice(0, -TAG.length) : importer, {
          ...options,
          skipSelf: true,
        });
        if (!resolved || resolved.external || !/[\\/]node_modules[\\/]zod[\\/]/.test(resolved.id))
          return resolved;
        return { ...resolved, id: `${resolved.id}${TAG}` };
      },
    },
    load(id) {
      return id.endsWith(TAG) ? readFileSync(id.slice(0, -TAG.length), 'utf8') : null;
    },
  };
}
