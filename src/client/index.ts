/**
 * Public surface of the page glue.
 *
 * @example
 * import { startIntab } from './client';
 * const intab = startIntab();
 * await intab.ready; // fetch('/v1/responses') now answers from this tab
 */

export type { GpuStatus } from '../worker/protocol';
export { type IntabClient, type StartIntabOptions, startIntab } from './start-intab';
