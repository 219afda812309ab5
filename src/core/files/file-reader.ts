import { clip, invalidRequest } from '../../common/api-error';
import type { FileStore } from '../../store/files';
import type { FileContentReader } from '../hosted/contracts';

/**
 * The {@link FileContentReader} over `/v1/files`' store: what `input_file.file_id` and
 * `input_image.file_id` read. A missing (never uploaded, deleted, expired) file is a 400 on the
 * part's `param`, in OpenAI's words for a missing file.
 *
 * @example
 * const readFile = fileReaderOver(store.files);
 * const { bytes, filename } = await readFile('file-abc', 'input[0].content[1].file_id');
 */
export function fileReaderOver(files: FileStore): FileContentReader {
  return async (fileId, param) => {
    const data = await files.read(fileId);
    if (!data) {
      throw invalidRequest(param, `No such File object: ${clip(fileId)}`, 'invalid_value');
    }
    const { file } = data.meta;
    return { id: file.id, filename: file.filename, purpose: file.purpose, bytes: data.bytes };
  };
}
