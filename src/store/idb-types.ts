import type { DBSchema, IDBPTransaction, StoreNames } from 'idb';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { StoredFileMeta } from './files/types';
import type { StoredConversation, StoredResponse } from './types';
import type {
  StoredFileBatch,
  StoredVectorStore,
  StoredVectorStoreFile,
  StoredVectors,
} from './vector-stores/types';

/**
 * The typed schema. `events` keys are `[responseId, sequence_number]` so one key range selects a
 * response's log in order, and deleting a response's events needs no index. Since version 2 a
 * record is a whole batch (keyed by its first event's number): one record per flush instead of
 * one per token, which makes a stored stream cost a few puts instead of thousands; single-event
 * records written before still read back. `conversation_items`
 * keys are `[conversationId, position]` for the same reason.
 *
 * `items` keys are `[itemId, ownerId]`, one entry per copy: a response's `inputItems` repeat the
 * history of its `previous_response_id` chain, so the same item id belongs to many responses, and
 * deleting one of them must neither drop the item for the others nor leave it behind for itself.
 *
 * @example
 * const db: IDBPDatabase<IntabDB> = await openDatabase({ factory: indexedDB });
 */
export interface IntabDB extends DBSchema {
  responses: {
    key: string;
    value: StoredResponse;
    indexes: { by_expiry: number; by_created: number };
  };
  events: {
    key: [string, number];
    value: ResponseStreamEvent | ResponseStreamEvent[];
  };
  conversations: {
    key: string;
    value: StoredConversation;
    indexes: { by_expiry: number; by_created: number };
  };
  conversation_items: {
    key: [string, number];
    value: StoredConversationItem;
    indexes: { by_item: [string, string] };
  };
  items: {
    key: [string, string];
    value: ItemIndexEntry;
    indexes: { by_response: string; by_conversation: string };
  };
  /** `/v1/files` metadata, keyed by file id; `file_bytes` holds each file's bytes under the same id. */
  files: {
    key: string;
    value: StoredFileMeta;
    indexes: { by_expiry: number; by_created: [number, string] };
  };
  file_bytes: {
    key: string;
    value: Uint8Array;
  };
  vector_stores: {
    key: string;
    value: StoredVectorStore;
  };
  vector_store_files: {
    key: [string, string];
    value: StoredVectorStoreFile;
    indexes: { by_file: string };
  };
  vector_store_batches: {
    key: [string, string];
    value: StoredFileBatch;
  };
  /** Chunk texts of one indexed file, keyed `[vectorStoreId, fileId]`. */
  vector_chunks: {
    key: [string, string];
    value: { texts: string[] };
  };
  /** Vectors of one indexed file (one `ArrayBuffer`), keyed `[vectorStoreId, fileId]`. */
  vector_vectors: {
    key: [string, string];
    value: StoredVectors;
  };
}

/** A conversation item at its place in the conversation (positions only grow; gaps are fine). */
export interface StoredConversationItem {
  conversationId: string;
  position: number;
  item: ConversationItem;
}

/** One copy of an item in the `items` index, owned by exactly one response or one conversation. */
export type ItemIndexEntry = { item: ResponseItem | ConversationItem } & (
  | { responseId: string; conversationId?: undefined }
  | { conversationId: string; responseId?: undefined }
);

/** Stores a transaction may span, spelled with the schema's names. */
export type IntabStoreName = StoreNames<IntabDB>;
/** A transaction of the schema over some stores. */
export type IntabTx<S extends IntabStoreName[], M extends IDBTransactionMode> = IDBPTransaction<
  IntabDB,
  S,
  M
>;
