import { cancelFileBatch, createFileBatch, getFileBatch, listFileBatchFiles } from './batch-routes';
import {
  createVectorStoreFile,
  deleteVectorStoreFile,
  getVectorStoreFile,
  listVectorStoreFiles,
  updateVectorStoreFile,
  vectorStoreFileContent,
} from './file-routes';
import { searchVectorStore } from './search-route';
import {
  createVectorStore,
  deleteVectorStore,
  getVectorStore,
  listVectorStores,
  updateVectorStore,
} from './store-routes';
import type { VectorStoreSurface } from './surface';

type Params = Record<string, string>;
type Handler = (request: Request, url: URL, params: Params) => Promise<Response>;

/**
 * Every `/v1/vector_stores` route (paths without `/v1`, as the server's router files them), each a
 * method table, for `createResponsesServer` to add to its own.
 *
 * @example
 * routes.push(...vectorStoreRoutes(surface));
 */
export function vectorStoreRoutes(
  s: VectorStoreSurface,
): { path: string; methods: Record<string, Handler> }[] {
  const id = (p: Params) => p.id as string;
  const file = (p: Params) => p.file as string;
  const batch = (p: Params) => p.batch as string;
  return [
    {
      path: '/vector_stores',
      methods: { POST: (r) => createVectorStore(r, s), GET: (_r, url) => listVectorStores(url, s) },
    },
    {
      path: '/vector_stores/:id',
      methods: {
        GET: (_r, _u, p) => getVectorStore(id(p), s),
        POST: (r, _u, p) => updateVectorStore(r, id(p), s),
        DELETE: (_r, _u, p) => deleteVectorStore(id(p), s),
      },
    },
    { path: '/vector_stores/:id/search', methods: { POST: (r, _u, p) => searchVectorStore(r, id(p), s) } },
    {
      path: '/vector_stores/:id/files',
      methods: {
        POST: (r, _u, p) => createVectorStoreFile(r, id(p), s),
        GET: (_r, url, p) => listVectorStoreFiles(url, id(p), s),
      },
    },
    {
      path: '/vector_stores/:id/files/:file',
      methods: {
        GET: (_r, _u, p) => getVectorStoreFile(id(p), file(p), s),
        POST: (r, _u, p) => updateVectorStoreFile(r, id(p), file(p), s),
        DELETE: (_r, _u, p) => deleteVectorStoreFile(id(p), file(p), s),
      },
    },
    {
      path: '/vector_stores/:id/files/:file/content',
      methods: { GET: (_r, _u, p) => vectorStoreFileContent(id(p), file(p), s) },
    },
    {
      path: '/vector_stores/:id/file_batches',
      methods: { POST: (r, _u, p) => createFileBatch(r, id(p), s) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch',
      methods: { GET: (_r, _u, p) => getFileBatch(id(p), batch(p), s) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch/cancel',
      methods: { POST: (_r, _u, p) => cancelFileBatch(id(p), batch(p), s) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch/files',
      methods: { GET: (_r, url, p) => listFileBatchFiles(url, id(p), batch(p), s) },
    },
  ];
}
