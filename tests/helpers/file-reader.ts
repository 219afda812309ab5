/**
 * A `FileContentReader` over a Map, standing in for the Files API (built in parallel): the vector
 * store tests attach files by id and the reader answers their bytes, or the 400 the contract asks.
 *
 * @example
 * const files = new TestFiles({ 'file-a': ['a.txt', 'solar panels on the roof'] });
 * const { client } = makeRig({ readFile: files.reader });
 */
import { invalidRequest } from '../../src/common/api-error';
import type { FileContentReader, StoredFileContent } from '../../src/core/hosted/contracts';

export class TestFiles {
  readonly files = new Map<string, StoredFileContent>();
  /** How many times each id was read. */
  readonly reads = new Map<string, number>();

  constructor(initial: Record<string, [filename: string, content: string | Uint8Array]> = {}) {
    for (const [id, [filename, content]] of Object.entries(initial)) this.add(id, filename, content);
  }

  add(id: string, filename: string, content: string | Uint8Array): void {
    const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    this.files.set(id, { id, filename, purpose: 'assistants', bytes });
  }

  delete(id: string): void {
    this.files.delete(id);
  }

  readonly reader: FileContentReader = async (fileId, param) => {
    this.reads.set(fileId, (this.reads.get(fileId) ?? 0) + 1);
    const file = this.files.get(fileId);
    if (!file) throw invalidRequest(param, `No such File object: ${fileId}`, 'invalid_value');
    return { ...file, bytes: file.bytes.slice() };
  };
}
