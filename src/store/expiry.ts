import type { StoredResponse, StoreLimits } from './types';

/** Limits with defaults applied, as both stores use them. */
export interface ResolvedLimits {
  ttlMs: number | null;
  maxResponses: number | null;
  now: () => number;
}

/**
 * Applies defaults to {@link StoreLimits} and rejects nonsense early, so a typo in configuration
 * fails at startup rather than silently keeping or dropping everything.
 *
 * @example
 * const limits = resolveLimits({ ttlMs: 60_000 }); // { ttlMs: 60000, maxResponses: null, now: Date.now }
 */
export function resolveLimits(opts: StoreLimits = {}): ResolvedLimits {
  const ttlMs = opts.ttlMs ?? null;
  const maxResponses = opts.maxResponses ?? null;
  if (ttlMs !== null && !(ttlMs > 0)) throw new RangeError(`ttlMs must be a positive number, got ${ttlMs}`);
  if (maxResponses !== null && !(Number.isInteger(maxResponses) && maxResponses >= 0)) {
    throw new RangeError(`maxResponses must be a non-negative integer, got ${maxResponses}`);
  }
  return { ttlMs, maxResponses, now: opts.now ?? Date.now };
}

/**
 * The record as it should be stored: an explicit `expiresAt` (even null) wins, so re-putting a record
 * read back from the store keeps its original deadline instead of extending it on every update.
 *
 * @example
 * withExpiry({ response, inputItems: [] }, limits).expiresAt; // now + ttlMs, or null without a TTL
 */
export function withExpiry(record: StoredResponse, limits: ResolvedLimits): StoredResponse {
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
export function isExpired(record: StoredResponse, now: number): boolean {
  return record.expiresAt != null && now > record.expiresAt;
}
