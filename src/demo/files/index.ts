/** The demo's Files & vector stores panel, and the dates its lists show. */
export { shortDate } from './dates';
export { createFilesPanel, type FilesPanel } from './files-panel';
