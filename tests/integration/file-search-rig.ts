/**
 * Shared by the file_search integration tests over the core: three small files in the vector store
 * `vs_docs` behind an in-memory double, the hosted tool that searches it, the rig that serves both,
 * readers of the output, and a scripted engine that records each pass.
 *
 * @example
 * const { client, backend } = rig();
 * const r = await client.responses.create({ model: 'scripted', input: '!file_search sky', tools: [TOOL] });
 */
import type {
  ResponseFileSearchToolCall,
  ResponseOutputMessage,
  ResponseOutputText,
} from 'openai/resources/responses/responses';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';
import type { EngineUsage, GenerateRequest } from '../../src/engine/types';
import { MemoryFileSearch } from '../helpers/file-search-double';
import { makeRig } from '../helpers/server';

export const FILES = {
  vs_docs: [
    { file_id: 'file-sky', filename: 'sky.txt', text: 'The sky is blue on a clear day.' },
    { file_id: 'file-grass', filename: 'grass.txt', text: 'Grass is green in spring.' },
    { file_id: 'file-sea', filename: 'sea.txt', text: 'The sea is blue and deep.' },
  ],
};
export const TOOL = { type: 'file_search' as const, vector_store_ids: ['vs_docs'] };

/** The core over the scripted engine (or `engine`) and a file_search double holding {@link FILES}. */
export function rig(engine = new ScriptedEngine()) {
  const backend = new MemoryFileSearch(FILES);
  return { backend, ...makeRig({ fileSearch: backend, engine }) };
}

/** The file_search_call items of an output. */
export const calls = (output: { type: string }[]) =>
  output.filter((o): o is ResponseFileSearchToolCall => o.type === 'file_search_call');
/** The output_text parts of an output's messages. */
export const texts = (output: { type: string }[]) =>
  output
    .filter((o): o is ResponseOutputMessage => o.type === 'message')
    .flatMap((m) => m.content.filter((p): p is ResponseOutputText => p.type === 'output_text'));

/** The scripted engine, recording each pass's request and usage. */
export class CountingEngine extends ScriptedEngine {
  readonly requests: GenerateRequest[] = [];
  readonly usages: EngineUsage[] = [];
  override async *generate(req: GenerateRequest, signal: AbortSignal) {
    this.requests.push(req);
    for await (const chunk of super.generate(req, signal)) {
      if (chunk.type === 'done') this.usages.push(chunk.usage);
      yield chunk;
    }
  }
}
