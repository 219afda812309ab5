/**
 * One message per way a model load fails, saying what happened and what to do: the engines' errors
 * are accurate but technical (`DeviceLostError`, `Failed to fetch`), and a visitor needs the next step.
 */
import { errorMessage } from './dom';

/** What to do, per kind of failure; matched on the error's OpenAI `code`, else on its message. */
const ADVICE: ReadonlyArray<[code: string, pattern: RegExp, advice: string]> = [
  [
    'webgpu_unavailable',
    /webgpu|shader-f16|adapter/i,
    'This browser cannot run it on the GPU: pick a CPU (GGUF) build, or an f32 build if only shader-f16 is missing.',
  ],
  [
    'webgpu_device_lost',
    /out of memory|\boom\b|device (was )?lost|allocat|memory/i,
    'Not enough GPU memory: pick a smaller build (fewer parameters, q4, a 1k context) or close other tabs that use the GPU.',
  ],
  ['quota', /quota|storage/i, 'Not enough storage: delete a downloaded model below, then try again.'],
  [
    'model_download_failed',
    /fetch|network|download|offline|http \d{3}/i,
    'The download stopped: check the connection and try again.',
  ],
];

/**
 * The status line for a failed load.
 *
 * @example
 * loadFailureMessage('Qwen3-8B-q4f16_1-MLC', Object.assign(new Error('Device lost'), { code: 'webgpu_device_lost' }), 'scripted');
 * // 'Could not load Qwen3-8B-q4f16_1-MLC (Device lost). Not enough GPU memory: … The chat stays on scripted.'
 */
export function loadFailureMessage(id: string, err: unknown, active: string): string {
  const message = errorMessage(err).replace(/\.$/, '');
  const code = (err as { code?: unknown } | null)?.code;
  const hit = ADVICE.find(([c, pattern]) => code === c || pattern.test(message));
  const advice = hit ? ` ${hit[2]}` : '';
  return `Could not load ${id} (${message}).${advice} The chat stays on ${active}.`;
}
