import type { Conversation } from 'openai/resources/conversations/conversations';
import type { ConversationItem } from 'openai/resources/conversations/items';
import type {
  Response as ApiResponse,
  ResponseItem,
  ResponseStreamEvent,
} from 'openai/resources/responses/responses';
import type { FileStore } from './files/types';
import type { VectorStoreStore } from './vector-stores/types';

/** One stored response: the wire object plus the items it was generated from. */
export interface StoredResponse {
  response: ApiResponse;
  /**
   * Every item the model saw for this response, oldest first, with ids: the history carried in by
   * `previous_response_id` followed by this request's own input. `GET /input_items` lists these.
   */
  inputItems: ResponseItem[];
  /** Epoch ms after which the entry is expired; null = never. */
  expiresAt?: number | null;
}

/**
 * Durable state of the Responses server. Implementations: MemoryStore (tests, store:false sessions)
 * and IdbStore (IndexedDB through idb). Every method rejects with an ApiError on storage failure
 * (e.g. QuotaExceededError → 507-ish OpenAI error), never with a raw DOMException.
 *
 * @example
 * await store.putResponse(record, { durable: true });
 * const again = await store.getResponse(record.response.id);
 */
export interface ResponseStore {
  /** Inserts or replaces a response record. `durable` asks for strict durability (final writes). */
  putResponse(record: StoredResponse, opts?: { durable?: boolean }): Promise<void>;
  getResponse(id: string): Promise<StoredResponse | undefined>;
  /** Deletes a response and its event log. Resolves false when there was nothing to delete. */
  deleteResponse(id: string): Promise<boolean>;
  /** Appends a batch of stream events (one transaction per call, not per event). */
  appendEvents(responseId: string, events: ResponseStreamEvent[]): Promise<void>;
  /** Events with `sequence_number > startingAfter` (all when undefined), in order. */
  readEvents(responseId: string, startingAfter?: number): Promise<ResponseStreamEvent[]>;
  /**
   * Deletes expired entries, then trims to the configured maxima (oldest `created_at` first), for
   * responses and conversations alike.
   * Optional: stores without limits omit it. Callers run it opportunistically, off the request path.
   */
  sweep?(): Promise<SweepResult>;
  /** The newest live responses and conversations, newest first, at most `limit` of each (storage views). */
  listRecent(limit: number): Promise<RecentEntries>;
  /** Responses stored as `queued` or `in_progress`: after a restart, those whose runner is gone. */
  listUnfinished(): Promise<StoredResponse[]>;
  /** Releases the underlying connection. */
  close(): void;
  /** The files of `/v1/files` (expired ones go with {@link ResponseStore.sweep}); absent on stores that keep none. */
  readonly files?: FileStore;

  /**
   * Inserts a conversation or replaces it (metadata updates). A replaced conversation keeps its
   * expiry deadline and its items.
   */
  putConversation(conv: Conversation): Promise<void>;
  /**
   * Replaces a live conversation's metadata and answers the updated conversation, or undefined when
   * it does not exist (never existed, deleted, expired). The existence check and the write are one
   * transaction, so a delete that races the update wins: the conversation is never brought back.
   */
  updateConversationMetadata(
    id: string,
    metadata: Conversation['metadata'],
  ): Promise<Conversation | undefined>;
  /** The conversation, or undefined when it never existed, was deleted or has expired. */
  getConversation(id: string): Promise<Conversation | undefined>;
  /** Deletes the conversation and all its items atomically; false if it did not exist. */
  deleteConversation(id: string): Promise<boolean>;
  /**
   * Appends items at the end of a conversation, in order, atomically: the next position is read and
   * the items written in ONE readwrite transaction, so two concurrent appends never interleave or drop
   * items (IndexedDB serializes overlapping readwrite transactions). Rejects with a 404 ApiError if the
   * conversation does not exist, and with a 400 (`duplicate_item`) if an item id is already in it.
   */
  appendConversationItems(conversationId: string, items: ConversationItem[]): Promise<void>;
  /**
   * Cursor list in position order; `after` is an item id (exclusive); `hasMore` tells if more follow.
   * Rejects with a 404 ApiError when the conversation does not exist (param `conversation_id`) or
   * `after` is not one of its items (param `after`).
   */
  listConversationItems(conversationId: string, opts: ListOptions): Promise<ListPage<ConversationItem>>;
  getConversationItem(conversationId: string, itemId: string): Promise<ConversationItem | undefined>;
  /** Deletes one item of a conversation; false when the conversation or the item does not exist. */
  deleteConversationItem(conversationId: string, itemId: string): Promise<boolean>;
  /**
   * Any stored item by id: items of live stored responses (their inputItems and output) and of live
   * conversations. For `item_reference` inputs.
   */
  findItem(itemId: string): Promise<ResponseItem | ConversationItem | undefined>;

  /**
   * The vector stores behind `/v1/vector_stores` and `file_search`, on the same storage. Optional so
   * that store doubles need not have one; the core keeps them in memory then.
   */
  readonly vectorStores?: VectorStoreStore;
}

/**
 * One page request of a cursor list.
 *
 * @example
 * const page = await store.listConversationItems('conv_1', { limit: 20, order: 'desc', after: 'msg_9' });
 */
export interface ListOptions {
  /** Item id to start after (exclusive); the first page when undefined. */
  after?: string;
  limit: number;
  order: 'asc' | 'desc';
}

/**
 * One page of a cursor list: the client asks for the next page with `after` set to the last id.
 *
 * @example
 * const { data, hasMore } = await store.listConversationItems('conv_1', { limit: 20, order: 'asc' });
 */
export interface ListPage<T> {
  data: T[];
  hasMore: boolean;
}

/** One stored conversation: the wire object plus its retention deadline. */
export interface StoredConversation {
  conversation: Conversation;
  /** Epoch ms after which the conversation (with its items) is expired; null = never. */
  expiresAt?: number | null;
}

/** What one {@link ResponseStore.sweep} removed. */
export interface SweepResult {
  /** Responses removed because their `expiresAt` had passed. */
  expired: number;
  /** Responses removed to get back under the maximum entry count. */
  trimmed: number;
  /** Conversations (with their items) removed because their `expiresAt` had passed. */
  expiredConversations: number;
  /** Conversations (with their items) removed to get back under `maxConversations`. */
  trimmedConversations: number;
}

/**
 * Retention limits shared by every store implementation.
 *
 * @example
 * const limits: StoreLimits = { ttlMs: 30 * 24 * 3600_000, maxResponses: 1000, maxConversations: 100 };
 */
export interface StoreLimits {
  /**
   * Lifetime of a record written without an explicit `expiresAt`, for responses and conversations
   * alike (a conversation's clock starts at its first put); null/undefined = never expires.
   */
  ttlMs?: number | null;
  /** Most responses kept after a sweep; null/undefined = unbounded. */
  maxResponses?: number | null;
  /** Most conversations kept after a sweep (oldest `created_at` go first); null/undefined = unbounded. */
  maxConversations?: number | null;
  /** Clock in epoch ms, injectable so expiry is testable without fake timers. Defaults to Date.now. */
  now?: () => number;
}

/** What {@link ResponseStore.listRecent} returns. */
export interface RecentEntries {
  responses: StoredResponse['response'][];
  conversations: Conversation[];
}
