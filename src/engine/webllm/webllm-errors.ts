/**
 * web-llm failures as `ApiError`s. web-llm throws its own Error subclasses (lib/error.d.ts) and
 * names each one, so mapping is by `err.name`: `instanceof` would need a value import of web-llm.
 */
import {
  ApiError,
  invalidRequest,
  modelNotFound,
  serverError,
  serviceUnavailable,
} from '../../common/api-error';

const CONTEXT_OVERFLOW = new Set(['ContextWindowSizeExceededError', 'EmbeddingExceedContextWindowSizeError']);

const NO_WEBGPU = new Set([
  'WebGPUNotAvailableError',
  'WebGPUNotFoundError',
  'FeatureSupportError',
  'ShaderF16SupportError',
]);

/** Request shapes web-llm refuses; the core validated the wire request, so these name the input. */
const BAD_INPUT = new Set([
  'MessageOrderError',
  'SystemMessageOrderError',
  'ContentTypeError',
  'UnsupportedRoleError',
  'UserMessageContentErrorForNonVLM',
  'UnsupportedContentPartError',
  'UnsupportedDetailError',
  'UnsupportedImageURLError',
  'MultipleTextContentError',
  'PrefillChunkSizeSmallerThanImageError',
]);

const BAD_FORMAT = new Set([
  'InvalidResponseFormatError',
  'InvalidResponseFormatGrammarError',
  'InvalidResponseFormatStructuralTagError',
  'GrammarMatcherInitError',
  'CustomResponseFormatError',
]);

const BAD_CONFIG = new Set([
  'ConfigValueError',
  'MinValueError',
  'NonNegativeError',
  'InvalidNumberStringError',
  'DependencyError',
]);

/**
 * Maps an error thrown while generating.
 *
 * @example
 * mapGenerateError(Object.assign(new Error('Prompt tokens exceed…'), { name: 'ContextWindowSizeExceededError' }));
 * // ApiError 400 context_length_exceeded
 */
export function mapGenerateError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const { name, message } = describe(err);
  if (CONTEXT_OVERFLOW.has(name)) return invalidRequest('input', message, 'context_length_exceeded');
  if (NO_WEBGPU.has(name)) return serviceUnavailable(message, 'webgpu_unavailable');
  if (name === 'DeviceLostError') return serviceUnavailable(message, 'webgpu_device_lost');
  if (BAD_INPUT.has(name)) return invalidRequest('input', message);
  if (BAD_FORMAT.has(name)) return invalidRequest('text.format', message);
  if (BAD_CONFIG.has(name)) return invalidRequest(null, message);
  if (name === 'ModelNotLoadedError' || name === 'EngineNotLoadedError') {
    return serviceUnavailable(message, 'model_not_loaded');
  }
  return serverError(message || 'The model failed while generating.');
}

/**
 * Maps an error thrown while loading `modelId`: WebGPU trouble and failed downloads are 503s that
 * name the model, anything else a 500.
 *
 * @example
 * mapLoadError(new TypeError('Failed to fetch'), 'Qwen3-0.6B-q4f16_1-MLC'); // ApiError 503 model_download_failed
 */
export function mapLoadError(err: unknown, modelId: string): ApiError {
  if (err instanceof ApiError) return err;
  const { name, message } = describe(err);
  if (name === 'ModelNotFoundError') return modelNotFound(modelId);
  if (NO_WEBGPU.has(name)) return serviceUnavailable(message, 'webgpu_unavailable');
  if (name === 'DeviceLostError') return serviceUnavailable(message, 'webgpu_device_lost');
  if (isDownloadFailure(name, message)) {
    return serviceUnavailable(`Could not download model '${modelId}': ${message}`, 'model_download_failed');
  }
  return serverError(`Could not load model '${modelId}': ${message || name}`);
}

/**
 * Whether a load failure is the network's or the weight cache's. Browsers disagree on fetch errors:
 * Chromium throws `TypeError: Failed to fetch`, Firefox `TypeError: NetworkError when attempting to
 * fetch resource.`, Safari `TypeError: Load failed`; the Cache API and IndexedDB throw DOMExceptions
 * (`QuotaExceededError`, `NetworkError`), and web-llm's own cache layers throw plain Errors that say
 * "fetch" or "status". IntegrityError means a corrupted or tampered download.
 */
function isDownloadFailure(name: string, message: string): boolean {
  if (['NetworkError', 'QuotaExceededError', 'IntegrityError', 'UnknownError'].includes(name)) return true;
  return /fetch|network|load failed|download|cache|status \d{3}|response was not ok/i.test(message);
}

function describe(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  if (typeof err === 'object' && err !== null) {
    const o = err as { name?: unknown; message?: unknown };
    return { name: String(o.name ?? 'Error'), message: String(o.message ?? '') };
  }
  return { name: 'Error', message: String(err) };
}
