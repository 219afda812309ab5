/**
 * Page glue: registers the service worker, starts the engine worker and keeps the two connected.
 */
import * as Comlink from 'comlink';
import { Workbox } from 'workbox-window';
import { toApiError } from '../core/api-error';
import type { LoadProgress } from '../engine/types';
import { withDeadline } from '../worker/deadline';
import type { GpuStatus } from '../worker/protocol';
import { startEngineWorker } from './engine-worker-client';
import { brokerPorts } from './port-broker';
import { waitForControl, waitForModels } from './readiness';

/** The handle a page gets from {@link startIntab}. */
export interface IntabClient {
  /** Resolves when the page is controlled and fetch('/v1/models') answers 200 through the SW. Rejects after a bound with a clear error. */
  ready: Promise<void>;
  /** Loads a model in the engine worker, forwarding progress. */
  loadModel(modelId: string, onProgress?: (p: LoadProgress) => void): Promise<void>;
  /** WebGPU status for a status line. */
  gpuStatus(): Promise<GpuStatus>;
}

export interface StartIntabOptions {
  /** The built service worker; `dist/sw.js` by default. */
  swUrl?: string;
  /** Registration scope; `/` by default. The API is served at `{scope}v1/`. */
  scope?: string;
  /** Bound on {@link IntabClient.ready}, including the first install's precache. Default 30 s. */
  readyTimeoutMs?: number;
}

let started: IntabClient | undefined;

/**
 * Starts intab in this page. Idempotent: a second call returns the first client, so one page never
 * runs two engine workers (each would load its own copy of a model into GPU memory).
 *
 * @example
 * const intab = startIntab();
 * await intab.ready;
 * const res = await fetch('/v1/responses', { method: 'POST', body: JSON.stringify({ model: 'scripted', input: 'hi' }) });
 */
export function startIntab(opts: StartIntabOptions = {}): IntabClient {
  if (started) return started;
  const engine = startEngineWorker();
  const ready = startServiceWorker(opts, () => engine.connect());
  // Callers that never await `ready` still see why intab did not start, without an unhandled rejection.
  ready.catch((err: unknown) => console.error('[intab] not ready:', err));

  started = {
    ready,
    async loadModel(modelId, onProgress) {
      try {
        await engine.api.loadModel(modelId, onProgress ? Comlink.proxy(onProgress) : undefined);
      } catch (err) {
        throw toApiError(err);
      }
    },
    async gpuStatus() {
      try {
        return await withDeadline(engine.api.gpuStatus(), 10_000, 'The engine worker');
      } catch (err) {
        throw toApiError(err);
      }
    },
  };
  return started;
}

async function startServiceWorker(opts: StartIntabOptions, connect: () => MessagePort): Promise<void> {
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  const container = navigator.serviceWorker;
  if (!container) {
    throw new Error(
      'intab needs service workers, which this page does not have (they need https or localhost, and are off in some private modes).',
    );
  }
  const scope = opts.scope ?? '/';
  brokerPorts(container, connect);
  // `immediate`: workbox-window otherwise waits for the load event, delaying the first install.
  const wb = new Workbox(opts.swUrl ?? '/sw.js', { scope });
  const registration = await wb.register({ immediate: true });
  if (!registration) throw new Error('The service worker could not be registered.');
  await waitForControl(container, registration, deadline);
  await waitForModels(new URL(scope, location.href), deadline);
}
