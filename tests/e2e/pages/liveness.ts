/**
 * An e2e page like options.ts (the `StartIntabOptions` come in the URL's hash, `#<JSON>`), whose
 * engine worker is spin-worker.ts: the real worker plus a hook that makes it spin (see there).
 * Exposes `window.intab` and `window.OpenAI` to page scripts.
 */
import OpenAI from 'openai';
import { type IntabClient, type StartIntabOptions, startIntab } from '../../../src/client';
import spinWorkerUrl from './spin-worker.ts?worker&url';

declare global {
  interface Window {
    intab: IntabClient;
    OpenAI: typeof OpenAI;
  }
}

const options = JSON.parse(decodeURIComponent(location.hash.slice(1)) || '{}') as StartIntabOptions;
window.intab = startIntab({ ...options, workerUrl: spinWorkerUrl });
window.OpenAI = OpenAI;
