import type { StoreLimits } from './types';

/** Limits with defaults applied, as both stores use them. */
export interface ResolvedLimits {
  ttlMs: number | null;
  maxResponses: number | null;
  maxConversations: number | null;
  now: () => number;
}

/** Anything stored with a retention deadline: responses and conversations. */
export interface Expiring {
  expiresAt?: number | null;
}

/**
 * Applies defaults to {@link StoreLimits} and rejects nonsense early, so a typo in configuration
 * fails at startup rather than silently keeping or dropping everything.
 *
 * @example
 * const limits = resolveLimits({ ttlMs: 60_000 }); // { ttlMs: 60000, maxResponses: null, maxConversations: null, now: Date.now }
 */
export function resolveLimits(opts: StoreLimits = {}): ResolvedLimits {
  const ttlMs = opts.ttlMs ?? null;
  if (ttlMs !== null && !(ttlMs > 0)) throw new RangeError(`ttlMs must be a positive number, got ${ttlMs}`);
  return {
    ttlMs,
    maxResponses: maxCount('maxResponses', opts.maxResponses),
    maxConversations: maxCount('maxConversations', opts.maxConversations),
    now: opts.now ?? Date.now,
  };
}

function maxCount(name: string, value: number | null | undefined): number | null {
  if (value == null) return null;
  if (!(Number.isInteger(value) && value >= 0)) {
    throw new RangeError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

/**
 * The record as it should be stored: an explicit `expiresAt` (even null) wins, so re-putting a record
 * read back from the store keeps its original deadline instead of extending it on every update.
 *
 * @example
 * withExpiry({ response, inputItems: [] }, limits).expiresAt; // now + ttlMs, or null without a TTL
 */
export function withExpiry<T extends Expiring>(record: T, limits: ResolvedLimits): T {
  if (record.expiresAt !== undefined) return record;
  const expiresAt = limits.ttlMs === null ? null : limits.now() + limits.ttlMs;
  return { ...record, expiresAt };
}

/**
 * True once the clock has passed `expiresAt` ("epoch ms after which the entry is expired").
 *
 * @example
 * isExpired({ response, inputItems: [], expiresAt: 1000 }, 1001); // true
 */
export function isExpired(record: Expiring, now: number): boolean {
  return record.expiresAt != null && now > record.expiresAt;
}

/**
 * True when a record exists and has not expired: what clients can still see.
 *
 * @example
 * if (!isLive(await store.get(id), now)) throw notFound(`No conversation found with id '${id}'.`);
 */
export function isLive<T extends Expiring>(record: T | undefined, now: number): record is T {
  return record !== undefined && !isExpired(record, now);
}
