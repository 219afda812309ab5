/**
 * The Files surface (`/v1/files…`): upload, list, retrieve, delete and content, and the reader that
 * `input_file.file_id` / `input_image.file_id` go through.
 *
 * @example
 * import { createFile, fileReaderOver } from './files';
 */
export { fileReaderOver } from './file-reader';
export {
  createFile,
  deleteFile,
  type FileRouteDeps,
  fileContent,
  listFiles,
  noSuchFile,
  retrieveFile,
} from './file-routes';
export { FILE_BUDGETS, FILE_PURPOSES, newFileId } from './file-upload';
