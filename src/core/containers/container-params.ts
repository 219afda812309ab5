import * as z from 'zod/mini';

/**
 * The container options `POST /v1/containers` and a `code_interpreter` tool's `{type: 'auto'}`
 * container share, checked alike in both places.
 */

/** Files copied into a new container: at most 50 ids. */
export const containerFileIds = z.array(z.string().check(z.minLength(1))).check(z.maxLength(50));

/** OpenAI's memory tiers (intab's sandbox has one size: accepted and echoed). */
export const containerMemoryLimit = z.enum(['1g', '4g', '16g', '64g']);

/** No network, or an allowlist (intab's sandbox has no network either way). */
export const containerNetworkPolicy = z.union([
  z.strictObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('allowlist') }),
]);
