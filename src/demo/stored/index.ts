/** What the demo reads back from intab's store: the storage panel and the chat restored after a reload. */
export { rememberedResponse, rememberResponse, restoreChat } from './chat-restore';
export { createStoragePanel, type StoragePanel } from './storage-panel';
