import type { ConversationItem } from 'openai/resources/conversations/items';
import type { ResponseItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { ConversationDelegation } from './conversation-delegation';
import { isExpired, type ResolvedLimits, resolveLimits, withExpiry } from './expiry';
import { type FileStore, MemoryFiles } from './files';
import { compareIds, MemoryConversations } from './memory-conversations';
import type { RecentEntries, ResponseStore, StoredResponse, StoreLimits, SweepResult } from './types';
import { MemoryVectorStores } from './vector-stores/memory-vector-stores';

/**
 * {@link ResponseStore} in memory, for tests and `store: false` sessions. Values are structured-cloned
 * on the way in and out, like IndexedDB does, so callers can never mutate stored state by reference and
 * code tested against this store meets the same copy semantics in production.
 *
 * @example
 * const store = new MemoryStore({ ttlMs: 60_000 });
 * await store.putResponse({ response, inputItems: [] });
 */
export class MemoryStore extends ConversationDelegation implements ResponseStore {
  private readonly responses = new Map<string, StoredResponse>();
  /** Per response: events by sequence number (re-appending a number replaces it, as an IDB put does). */
  private readonly events = new Map<string, Map<number, ResponseStreamEvent>>();
  private readonly limits: ResolvedLimits;
  protected readonly conversations: MemoryConversations;
  readonly files: FileStore;
  /** Vector stores, their files, chunks and vectors (see VectorStoreStore). */
  readonly vectorStores = new MemoryVectorStores();

  constructor(limits: StoreLimits = {}) {
    super();
    this.limits = resolveLimits(limits);
    this.conversations = new MemoryConversations(this.limits);
    this.files = new MemoryFiles(this.limits.now);
  }

  async putResponse(record: StoredResponse, _opts?: { durable?: boolean }): Promise<void> {
    // Clone before storing so a DataCloneError rejects here, as it would in IndexedDB.
    const value = structuredClone(withExpiry(record, this.limits));
    this.responses.set(value.response.id, value);
  }

  async getResponse(id: string): Promise<StoredResponse | undefined> {
    const record = this.responses.get(id);
    if (!record || isExpired(record, this.limits.now())) return undefined;
    return structuredClone(record);
  }

  async listRecent(limit: number): Promise<RecentEntries> {
    const now = this.limits.now();
    const responses = [...this.responses.values()]
      .filter((r) => !isExpired(r, now))
      .sort((a, b) => b.response.created_at - a.response.created_at)
      .slice(0, limit)
      .map((r) => structuredClone(r.response));
    return { responses, conversations: this.conversations.recent(limit) };
  }

  async listUnfinished(): Promise<StoredResponse[]> {
    const now = this.limits.now();
    return [...this.responses.values()]
      .filter(
        (r) => !isExpired(r, now) && (r.response.status === 'queued' || r.response.status === 'in_progress'),
      )
      .map((r) => structuredClone(r));
  }

  async deleteResponse(id: string): Promise<boolean> {
    const record = this.responses.get(id);
    this.responses.delete(id);
    this.events.delete(id);
    return record !== undefined && !isExpired(record, this.limits.now());
  }

  async appendEvents(responseId: string, events: ResponseStreamEvent[]): Promise<void> {
    if (events.length === 0) return;
    // Clone the whole batch first: if one event cannot be cloned, none is stored (one "transaction").
    const copies = structuredClone(events);
    const log = this.events.get(responseId) ?? new Map<number, ResponseStreamEvent>();
    this.events.set(responseId, log);
    for (const event of copies) log.set(event.sequence_number, event);
  }

  async readEvents(responseId: string, startingAfter?: number): Promise<ResponseStreamEvent[]> {
    const log = this.events.get(responseId);
    if (!log) return [];
    const after = startingAfter ?? -Infinity;
    const selected = [...log.values()].filter((e) => e.sequence_number > after);
    selected.sort((a, b) => a.sequence_number - b.sequence_number);
    return structuredClone(selected);
  }

  async findItem(itemId: string): Promise<ResponseItem | ConversationItem | undefined> {
    const now = this.limits.now();
    for (const record of this.responses.values()) {
      if (isExpired(record, now)) continue;
      // Output items are stored as generated; see responseItemEntries for why the cast is sound.
      const items = [...record.inputItems, ...(record.response.output as unknown as ResponseItem[])];
      const found = items.find((item) => item.id === itemId);
      if (found) return structuredClone(found);
    }
    return structuredClone(this.conversations.findAnywhere(itemId));
  }

  /**
   * Same policy as IdbStore.sweep: expired first, then oldest `created_at` (ties by id) over the maximum;
   * responses first, then conversations.
   *
   * @example
   * const { expired, trimmed } = await store.sweep();
   */
  async sweep(): Promise<SweepResult> {
    const { expired, trimmed } = this.sweepResponses();
    const conversations = await this.conversations.sweep();
    await this.files.sweep();
    return {
      expired,
      trimmed,
      expiredConversations: conversations.expired,
      trimmedConversations: conversations.trimmed,
    };
  }

  private sweepResponses(): { expired: number; trimmed: number } {
    const now = this.limits.now();
    let expired = 0;
    for (const [id, record] of this.responses) {
      if (!isExpired(record, now)) continue;
      this.deleteNow(id);
      expired++;
    }
    const max = this.limits.maxResponses;
    const excess = max === null ? 0 : this.responses.size - max;
    if (excess <= 0) return { expired, trimmed: 0 };
    const oldest = [...this.responses.values()]
      .sort(
        (a, b) => a.response.created_at - b.response.created_at || compareIds(a.response.id, b.response.id),
      )
      .slice(0, excess);
    for (const record of oldest) this.deleteNow(record.response.id);
    return { expired, trimmed: oldest.length };
  }

  /** Nothing to release; kept for the interface. */
  close(): void {}

  private deleteNow(id: string): void {
    this.responses.delete(id);
    this.events.delete(id);
  }
}
