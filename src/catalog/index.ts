/**
 * The model catalog (`intab/catalog`): every web-llm prebuilt and a curated GGUF list, with the
 * facts a person chooses a model by, and the pure checks of what fits a device.
 */
export { type CatalogModel, catalogEntry, catalogWireFields, MODEL_CATALOG } from './catalog';
export {
  type DeviceFacts,
  deviceFit,
  type Fit,
  formatBytes,
  memoryNeeded,
  SOFTWARE_ADAPTER_REASON,
} from './device-fit';
export { GGUF_CATALOG, type GgufCatalogEntry } from './gguf-models';
export { FAMILY_ORDER, familyOf, parameterCount } from './model-names';
export {
  CPU_RECOMMEND_MAX_PARAMETERS,
  downloadSize,
  FIRST_DOWNLOAD_MAX_BYTES,
  recommendationReason,
  recommendModel,
} from './recommend';
export { WEBLLM_PREBUILT_VERSION } from './webllm-prebuilts';
