/**
 * The real file_search backend (src/core/vector-stores) over a test's storage, as a server built by
 * `makeRig` with the same options searches it: the scripted engine, the wall clock, a 1 MiB body cap.
 *
 * @example
 * const backend = realFileSearch({ store, readFile: files.reader, vectorStores });
 */
import {
  createFileSearchBackend,
  type VectorStoreDeps,
  VectorStoreSurface,
} from '../../src/core/vector-stores';
import { ScriptedEngine } from '../../src/engine/scripted/scripted-engine';

export function realFileSearch(deps: Pick<VectorStoreDeps, 'store' | 'readFile' | 'vectorStores'>) {
  const surface = new VectorStoreSurface({
    engine: new ScriptedEngine(),
    store: deps.store,
    now: Date.now,
    maxBodyBytes: 1 << 20,
    readFile: deps.readFile,
    vectorStores: deps.vectorStores,
  });
  return createFileSearchBackend(surface);
}
