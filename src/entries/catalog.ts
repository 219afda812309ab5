/**
 * `intab/catalog`: the model catalog as plain data, for apps that build their own picker. It
 * imports neither engine, so it costs a few kilobytes.
 *
 * @example
 * import { MODEL_CATALOG } from 'intab/catalog';
 * const small = MODEL_CATALOG.filter((m) => m.engine === 'wllama' && m.kind === 'chat');
 */
export * from '../catalog';
