/**
 * The Conversations surface (`/v1/conversations…`): conversations and their items.
 *
 * @example
 * import { createConversation, listItems } from './conversations';
 */
export {
  addItems,
  createConversation,
  deleteConversation,
  deleteItem,
  getConversation,
  getItem,
  listItems,
  updateConversation,
} from './conversation-routes';
