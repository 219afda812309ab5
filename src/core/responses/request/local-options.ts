import { invalidRequest } from '../../../common/api-error';
import type { CreateResponseBody } from './create-schema';

/** The create options a picked schema (compact) may carry; each is checked only when present. */
type LocalOptionFields = Partial<
  Pick<
    CreateResponseBody,
    'access_programs' | 'image' | 'moderation' | 'prompt_cache_options' | 'reasoning' | 'prompt'
  >
>;

/**
 * Refuses the values of otherwise valid create options that ask for something only OpenAI's
 * platform has, each as a 400 `unsupported_value` naming the param. Values a local model serves
 * as asked pass, and the response echoes them (see `newResponseObject`).
 *
 * @example
 * checkLocalOptions({ image: { context_compression: 'enabled' } }); // throws 400 on image.context_compression
 */
export function checkLocalOptions(body: LocalOptionFields): void {
  if (body.prompt != null) {
    refuse(
      'prompt',
      "Prompt templates live on OpenAI's platform and cannot be read offline: send instructions and input instead.",
    );
  }
  const cyber = body.access_programs?.cyber;
  if (cyber !== undefined && cyber !== 'standard') {
    refuse(
      'access_programs.cyber',
      `Access program '${cyber}' is not available offline: local models have no Cyber tier and run under 'standard'.`,
    );
  }
  if (body.image?.context_compression === 'enabled') {
    refuse(
      'image.context_compression',
      "Image context compression is not supported by intab's local models: use 'auto' or 'disabled'.",
    );
  }
  if (body.moderation != null) {
    // Skipping a `block` policy silently would hand back unmoderated text as if it had passed.
    refuse(
      'moderation',
      "Moderation runs on OpenAI's moderation models, which are not available offline: leave 'moderation' out.",
    );
  }
  if (body.prompt_cache_options?.prewarm) {
    refuse(
      'prompt_cache_options.prewarm',
      'Prompt cache prewarming is not supported by intab: local models keep no prompt cache to prepare.',
    );
  }
  if (body.reasoning?.context === 'all_turns') {
    refuse(
      'reasoning.context',
      "Reasoning context 'all_turns' is not supported by intab: earlier reasoning items are never shown to a local model again. Use 'auto' or 'current_turn'.",
    );
  }
}

function refuse(param: string, message: string): never {
  throw invalidRequest(param, message, 'unsupported_value');
}
