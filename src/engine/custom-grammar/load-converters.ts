import { declaresTool } from '../../common/declares-tool';
import { preloaded } from '../../common/lazy-module';

const grammars = preloaded('custom tool grammar', () => import('./converters'));

/**
 * Loads the grammar converters once; a failed load is a 503 for the request that asked, tried again
 * by the next one (common/lazy-module.ts).
 */
export async function loadCustomGrammars(): Promise<void> {
  await grammars.load();
}

/**
 * Loads the converters when `tools` (a Responses or Chat Completions `tools` array, unchecked)
 * declares a `custom` tool: each route that parses tools awaits this first, so the parse itself
 * stays synchronous. Linear in the tools.
 *
 * @example
 * await loadCustomGrammarsFor(json.tools); // then customPattern(...) converts without waiting
 */
export async function loadCustomGrammarsFor(tools: unknown): Promise<void> {
  if (declaresTool(tools, (type) => type === 'custom')) await loadCustomGrammars();
}

/** The loaded converters; a route that converts a grammar without loading them first is a bug. */
export const converters = grammars.get;
