import type { StaticFileChunkingStrategyObject } from 'openai/resources/vector-stores/vector-stores';
import * as z from 'zod/mini';
import { keepOwnKeys } from '../validation/params';
import {
  AUTO_CHUNK_OVERLAP,
  AUTO_CHUNK_TOKENS,
  MAX_ATTRIBUTE_KEY_LENGTH,
  MAX_ATTRIBUTE_KEYS,
  MAX_ATTRIBUTE_STRING_LENGTH,
  MAX_CHUNK_TOKENS,
  MAX_EXPIRY_DAYS,
  MIN_CHUNK_TOKENS,
} from './budgets';

/** A vector store file's attributes: ≤ 16 keys of ≤ 64 characters; strings ≤ 512, numbers, booleans. */
export const attributesSchema = keepOwnKeys(
  z
    .record(
      z.string().check(z.maxLength(MAX_ATTRIBUTE_KEY_LENGTH)),
      z.union([z.string().check(z.maxLength(MAX_ATTRIBUTE_STRING_LENGTH)), z.number(), z.boolean()]),
    )
    .check(
      z.refine((m) => Object.keys(m).length <= MAX_ATTRIBUTE_KEYS, { message: 'metadata_too_many_pairs' }),
    ),
);

/**
 * `chunking_strategy`: `{type:'auto'}` or `{type:'static', static:{max_chunk_size_tokens 100–4096,
 * chunk_overlap_tokens ≤ half}}`. Each static field may be left out: 800, and 400 or half the size.
 */
export const chunkingSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('auto') }),
  z.strictObject({
    type: z.literal('static'),
    static: z
      .strictObject({
        max_chunk_size_tokens: z.optional(
          z.number().check(z.int()).check(z.minimum(MIN_CHUNK_TOKENS)).check(z.maximum(MAX_CHUNK_TOKENS)),
        ),
        chunk_overlap_tokens: z.optional(z.number().check(z.int()).check(z.minimum(0))),
      })
      .check(
        z.superRefine((s, ctx) => {
          const size = s.max_chunk_size_tokens ?? AUTO_CHUNK_TOKENS;
          if (s.chunk_overlap_tokens !== undefined && s.chunk_overlap_tokens > size / 2)
            ctx.addIssue({
              code: 'custom',
              path: ['chunk_overlap_tokens'],
              message: `chunk_overlap_tokens (${s.chunk_overlap_tokens}) must not exceed half of max_chunk_size_tokens (${size}).`,
            });
        }),
      ),
  }),
]);

export type ChunkingParam = z.infer<typeof chunkingSchema>;

/**
 * The strategy a file is chunked with, as the file object reports it: `auto` (and no strategy)
 * reads back as the static 800/400 it is.
 *
 * @example
 * resolveChunking({ type: 'static', static: { max_chunk_size_tokens: 100 } }) // → static 100/50
 */
export function resolveChunking(param: ChunkingParam | null | undefined): StaticFileChunkingStrategyObject {
  if (!param || param.type === 'auto')
    return {
      type: 'static',
      static: { max_chunk_size_tokens: AUTO_CHUNK_TOKENS, chunk_overlap_tokens: AUTO_CHUNK_OVERLAP },
    };
  const size = param.static.max_chunk_size_tokens ?? AUTO_CHUNK_TOKENS;
  const overlap = param.static.chunk_overlap_tokens ?? Math.min(AUTO_CHUNK_OVERLAP, Math.floor(size / 2));
  return { type: 'static', static: { max_chunk_size_tokens: size, chunk_overlap_tokens: overlap } };
}

/** `expires_after`: `{anchor:'last_active_at', days: 1–365}`. */
export const expiresAfterSchema = z.strictObject({
  anchor: z.literal('last_active_at'),
  days: z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(MAX_EXPIRY_DAYS)),
});

/** A file id as the Files API issues them; any non-empty string is looked up. */
export const fileIdSchema = z.string().check(z.minLength(1)).check(z.maxLength(256));
