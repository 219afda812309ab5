/**
 * The engine worker's comlink API, separated from the worker entry so Node tests can drive it with a
 * fake server. Everything crossing the port is plain data: errors become {@link ApiErrorData}.
 */
import { invalidRequest, serviceUnavailable, toApiErrorData, toErrorResponse } from '../common/api-error';
import type { RemoteServerSpec } from '../engine/remote/remote-options';
import type { LoadProgress } from '../engine/types';
import type {
  AddModelSpec,
  EngineApi,
  GpuStatus,
  ModelListing,
  SerializedRequest,
  SerializedResponse,
} from './protocol';
import { PROTOCOL_VERSION } from './protocol';
import { deserializeRequest, serializeResponse } from './wire';

/** What the API needs; `server` is awaited per call so a failed start (e.g. IndexedDB) can retry. */
export interface EngineApiDeps {
  server: () => Promise<{ fetch(req: Request): Promise<Response> }>;
  load: (modelId: string, onProgress?: (p: LoadProgress) => void) => Promise<void>;
  gpuStatus: () => Promise<GpuStatus>;
  /** Stops a load in flight (see {@link EngineApi.cancelLoad}); absent: loads cannot be stopped. */
  cancelLoad?: (modelId: string) => Promise<boolean>;
  /** Registers a GGUF model (see {@link EngineApi.addModel}); absent: the worker serves none. */
  addModel?: (spec: AddModelSpec) => Promise<ModelListing>;
  /** Adds a remote server (see {@link EngineApi.addRemote}); absent: the worker has no remote engine. */
  addRemote?: (spec: RemoteServerSpec) => Promise<ModelListing[]>;
  /** Move bodies as transferred streams (default: when the realm can); false forces the pull fallback. */
  transferStreams?: boolean;
}

/**
 * Builds the object the worker exposes on every port.
 *
 * @example
 * Comlink.expose(createEngineApi({ server, load, gpuStatus }), port);
 */
export function createEngineApi(deps: EngineApiDeps): EngineApi {
  // Requests whose `handle` has not answered yet, so `abort(id)` can reach them.
  const inFlight = new Map<string, AbortController>();

  return {
    async handle(data: SerializedRequest): Promise<SerializedResponse> {
      const controller = new AbortController();
      const id = typeof data?.id === 'string' ? data.id : null;
      if (id) inFlight.set(id, controller);
      try {
        const req = deserializeRequest(data, controller.signal);
        const server = await deps.server();
        return serializeResponse(await server.fetch(req), deps.transferStreams);
      } catch (err) {
        // A malformed message or a core bug must not take the worker down: answer with an error.
        return serializeResponse(toErrorResponse(err), deps.transferStreams);
      } finally {
        if (id) inFlight.delete(id);
      }
    },

    async abort(id: string): Promise<void> {
      inFlight.get(id)?.abort(new DOMException('The service worker gave up on this request.', 'AbortError'));
    },

    async ping() {
      return { protocol: PROTOCOL_VERSION };
    },

    async loadModel(modelId, onProgress) {
      try {
        // The progress callback is a comlink proxy: a call is a postMessage, so do not await it, and
        // never let a dead page's proxy break the load.
        await deps.load(
          modelId,
          onProgress ? (p) => void Promise.resolve(onProgress(p)).catch(() => {}) : undefined,
        );
      } catch (err) {
        throw toApiErrorData(err);
      }
    },

    async cancelLoad(modelId) {
      try {
        if (typeof modelId !== 'string') throw invalidRequest('model', 'cancelLoad needs a model id.');
        return (await deps.cancelLoad?.(modelId)) ?? false;
      } catch (err) {
        throw toApiErrorData(err);
      }
    },

    async addModel(spec) {
      try {
        if (!deps.addModel) throw serviceUnavailable('This engine worker serves no GGUF models.');
        return await deps.addModel(spec);
      } catch (err) {
        throw toApiErrorData(err);
      }
    },

    async addRemote(spec) {
      try {
        if (!deps.addRemote) throw serviceUnavailable('This engine worker has no remote engine.');
        return await deps.addRemote(spec);
      } catch (err) {
        throw toApiErrorData(err);
      }
    },

    async gpuStatus() {
      try {
        return await deps.gpuStatus();
      } catch (err) {
        throw toApiErrorData(err);
      }
    },
  };
}
