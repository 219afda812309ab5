import { declaresTool } from '../../../../../common/declares-tool';
import { preloaded } from '../../../../../common/lazy-module';
import { isClientToolType } from './client-tool-names';

const code = preloaded('client tools', () => import('./client-tool-options'));

/**
 * Loads the client tools' parse and specs (a chunk of their own) when `tools`, the request's
 * unchecked `tools`, declares one: the route awaits this before its synchronous parse. A failed load
 * is a 503 for the request that asked (common/lazy-module.ts).
 */
export async function loadClientToolsFor(tools: unknown): Promise<void> {
  if (declaresTool(tools, (type) => typeof type === 'string' && isClientToolType(type))) await code.load();
}

/** The loaded client tool code; a route that parses one without loading it first is a bug. */
export const clientTools = code.get;
