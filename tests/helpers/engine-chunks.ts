/**
 * What a stream of engine chunks says, read back for assertions: its calls, its text, its reasoning.
 */
import type { EngineChunk } from '../../src/engine/types';

/**
 * The tool calls, in order, as `{ name, arguments }`.
 * @example
 * expect(callsOf(chunks)).toEqual([{ name: 'get_weather', arguments: '{"city":"Paris"}' }]);
 */
export const callsOf = (chunks: EngineChunk[]) =>
  chunks.flatMap((c) => (c.type === 'tool_call' ? [{ name: c.name, arguments: c.arguments }] : []));

/** The text deltas, joined. */
export const textOf = (chunks: EngineChunk[]) =>
  chunks.flatMap((c) => (c.type === 'text' ? [c.delta] : [])).join('');

/** The reasoning deltas, joined. */
export const reasoningOf = (chunks: EngineChunk[]) =>
  chunks.flatMap((c) => (c.type === 'reasoning' ? [c.delta] : [])).join('');
