/**
 * The demo's cap on a reply's length, by model (issue 46): `scripted` needs none; the tiny random
 * test model never says it is done, so its replies stop at 48 tokens; any other model (a catalog
 * download, a GGUF opened from disk whose quality nobody knows) stops at 1,024, so a model that
 * rambles cannot hold the chat, and the reply's note says it was cut off at the limit.
 *
 * @example
 * replyCap('scripted', 'tiny-random'); // undefined
 * replyCap('my-model', 'tiny-random'); // 1024
 */
export const DEMO_REPLY_TOKENS = 1024;
export const TEST_MODEL_REPLY_TOKENS = 48;

export function replyCap(model: string, testModelId: string): number | undefined {
  if (model === 'scripted') return undefined;
  return model === testModelId ? TEST_MODEL_REPLY_TOKENS : DEMO_REPLY_TOKENS;
}
