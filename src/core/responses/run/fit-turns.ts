import { pace } from '../../../common/pace';
import { type Engine, type GenerateRequest, promptShape } from '../../../engine/types';
import { ANSWER_RESERVE_TOKENS } from '../../hosted';
import type { LoopState, PassOutcome } from './loop-state';

/**
 * Fitting hosted tool results into the model's context. A search returns up to 50 excerpts of up
 * to 800 tokens each, far more than a small local model reads: the next pass would fail with
 * `context_length_exceeded`. So before it, the pass's results are shortened (the lowest-ranked
 * excerpts left out, and the model told so) until the input fits, halving what each shows, at most
 * log2(50) + 2 counts. Input that does not fit even with no excerpts is left to the engine's 400.
 */

/**
 * Shortens `outcome`'s tool results in place until the next pass's input fits.
 *
 * @example
 * await fitTurns(outcome, state, req, engine, signal);
 */
export async function fitTurns(
  outcome: PassOutcome,
  state: LoopState,
  req: GenerateRequest,
  engine: Engine,
  signal: AbortSignal,
): Promise<void> {
  const window = state.contextWindow;
  const budget = window - Math.min(ANSWER_RESERVE_TOKENS, Math.floor(window / 8));
  let keep = Math.max(0, ...outcome.hosted.map((h) => h.parts));
  for (;;) {
    const count = await engine.countTokens(req.model, state.withTurns(outcome), req.tools, {
      shape: promptShape(req),
    });
    if (count <= budget || keep === 0 || signal.aborted) return;
    keep = Math.floor(keep / 2);
    for (const turn of outcome.hosted) turn.result = turn.shorter(keep);
    await pace();
  }
}
