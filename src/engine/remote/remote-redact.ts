/**
 * A remote server's chunks with the server's own secrets redacted (issue 38 §3.8): the README
 * promises that a server that echoes the key gets it replaced by `[redacted]`, in its output as in
 * its errors. Each text channel (text, reasoning, refusal, each call's argument deltas) is redacted
 * as a stream, holding back only what could be a secret's start; whole calls are redacted whole.
 */
import { redactText, StreamRedactor } from '../../common/redact';
import type { EngineChunk } from '../types';

type Channel = 'text' | 'reasoning' | 'refusal';

/**
 * `chunks` with `secrets` redacted; with no secrets, `chunks` as they are.
 *
 * @example
 * yield* redactChunks(upstream, ['sk-123456']);
 */
export async function* redactChunks(
  chunks: AsyncIterable<EngineChunk>,
  secrets: readonly string[],
): AsyncGenerator<EngineChunk> {
  if (secrets.length === 0) {
    yield* chunks;
    return;
  }
  const channels = new Map<Channel, StreamRedactor>();
  const calls = new Map<number, StreamRedactor>();
  const callNames = new Map<number, string>();
  /** The index the next whole `tool_call` completes. */
  let completes = 0;
  const redactor = <K>(map: Map<K, StreamRedactor>, key: K) => {
    const known = map.get(key);
    if (known) return known;
    const made = new StreamRedactor(secrets);
    map.set(key, made);
    return made;
  };
  /** What a channel still holds, as chunks, before anything that must follow it. */
  function* drain(): Generator<EngineChunk> {
    for (const [type, r] of channels) {
      const rest = r.flush();
      if (rest !== '') yield { type, delta: rest };
    }
  }
  for await (const chunk of chunks) {
    switch (chunk.type) {
      case 'text':
      case 'reasoning':
      case 'refusal': {
        const delta = redactor(channels, chunk.type).push(chunk.delta);
        if (delta !== '' || (chunk.type === 'text' && chunk.logprobs)) yield { ...chunk, delta };
        break;
      }
      case 'tool_call_delta': {
        callNames.set(chunk.index, chunk.name);
        const args = redactor(calls, chunk.index).push(chunk.arguments_delta);
        if (args !== '') yield { ...chunk, arguments_delta: args };
        break;
      }
      case 'tool_call': {
        // The deltas of the call this completes join whole before it.
        const rest = calls.get(completes)?.flush() ?? '';
        const name = callNames.get(completes) ?? chunk.name;
        if (rest !== '') yield { type: 'tool_call_delta', index: completes, name, arguments_delta: rest };
        completes++;
        yield { ...chunk, arguments: redactJsonText(chunk.arguments, secrets) };
        break;
      }
      case 'done':
        yield* drain();
        yield chunk;
        break;
    }
  }
  yield* drain();
}

/** Arguments' JSON text with the secrets redacted, in plain and in JSON-escaped form. */
function redactJsonText(text: string, secrets: readonly string[]): string {
  const escaped = secrets.map((s) => JSON.stringify(s).slice(1, -1)).filter((s) => s.length > 0);
  return redactText(redactText(text, secrets), escaped);
}
