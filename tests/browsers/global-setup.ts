/**
 * Before any browser file runs: the tiny test GGUF, the demo's dist/ with it, and the WebSocket-mode
 * build (tests/browsers/builds.ts), once for all four browser settings.
 */
import { prepareBuilds } from './builds';

export default async function setup(): Promise<void> {
  for (const line of await prepareBuilds()) console.log(`[browsers] ${line}`);
}
