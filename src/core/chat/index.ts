/**
 * The Chat Completions surface (`/v1/chat/completions`, JSON and SSE) on the same engines.
 *
 * @example
 * import { createChatCompletion } from './chat';
 */
export { type ChatDeps, createChatCompletion } from './create-chat-completion';
