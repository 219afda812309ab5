/**
 * What a request's input parts resolve to: `input_file` and `input_image` parts read from uploaded
 * files, data URLs and same-origin URLs, and the text of a PDF (pdf.js is loaded with `import()` only
 * when a PDF arrives, after its compressed streams passed the bomb scan in `pdf-streams.ts`).
 *
 * @example
 * import { resolveFileInputs } from '../inputs';
 */
export * from './file-inputs';
export * from './input-files';
export { isPdf, PDF_BUDGETS } from './pdf-text';
