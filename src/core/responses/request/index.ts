/**
 * Reading a create request: the body's schema, its input items (references resolved, tool calls
 * paired, ids unique), tools, includes and local options, and the chat messages an engine is given.
 *
 * @example
 * import { prepareCreate } from './request';
 * const prepared = await prepareCreate(json, deps);
 */
export { type CreateResponseBody, createResponseSchema } from './create-schema';
export { checkIncludes, queryIncludes } from './includes';
export { normalizeInput } from './input-items';
export { type PreparedCreate, prepareCreate } from './prepare-create';
export { toChatMessages } from './to-chat-messages';
