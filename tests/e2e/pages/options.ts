/**
 * An e2e page that starts intab as an app would, with the `StartIntabOptions` a test puts in the
 * URL's hash (`#<JSON>`), e.g. self-hosted web-llm records. A hash, not a query: the service worker
 * answers a navigation to a URL with a query with the demo page (the precache does not match it), so
 * a reload would lose the options. The demo page takes no options, and a page can start intab only
 * once. Exposes `window.intab`, `window.OpenAI` and `window.firstModels` to page scripts.
 */
import OpenAI from 'openai';
import { type IntabClient, type StartIntabOptions, startIntab } from '../../../src/client';

declare global {
  interface Window {
    intab: IntabClient;
    OpenAI: typeof OpenAI;
    /** `GET /v1/models` as an app sees it right after `await intab.ready`. */
    firstModels: Promise<{ data: { id: string }[] }>;
  }
}

const options = JSON.parse(decodeURIComponent(location.hash.slice(1)) || '{}') as StartIntabOptions;
window.intab = startIntab(options);
window.OpenAI = OpenAI;
window.firstModels = window.intab.ready.then(async () => (await fetch('/v1/models')).json());
