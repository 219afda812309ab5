import type { FileSearchBackend } from '../hosted/contracts';
import type * as Handlers from './index';
import type { VectorStoreSurface } from './surface';

type Params = Record<string, string>;
type Handler = (request: Request, url: URL, params: Params) => Promise<Response>;

/** The vector stores' code (its index.ts, loaded on first use) and the surface made with it. */
export interface LoadedVectorStores {
  h: typeof Handlers;
  s: VectorStoreSurface;
  backend: FileSearchBackend;
}

/**
 * Every `/v1/vector_stores` route (paths without `/v1`, as the server's router files them), each a
 * method table, for `createResponsesServer` to add to its own. The paths are known here; the code
 * that answers them is loaded by `load` when a request first reaches one.
 *
 * @example
 * routes.push(...vectorStoreRoutes(lazyModule('vector stores', () => loadVectorStores(deps))));
 */
export function vectorStoreRoutes(
  load: () => Promise<LoadedVectorStores>,
): { path: string; methods: Record<string, Handler> }[] {
  const id = (p: Params) => p.id as string;
  const file = (p: Params) => p.file as string;
  const batch = (p: Params) => p.batch as string;
  const on =
    (
      run: (h: typeof Handlers, s: VectorStoreSurface, r: Request, u: URL, p: Params) => Promise<Response>,
    ): Handler =>
    async (r, u, p) => {
      const { h, s } = await load();
      return run(h, s, r, u, p);
    };
  return [
    {
      path: '/vector_stores',
      methods: {
        POST: on((h, s, r) => h.createVectorStore(r, s)),
        GET: on((h, s, _r, url) => h.listVectorStores(url, s)),
      },
    },
    {
      path: '/vector_stores/:id',
      methods: {
        GET: on((h, s, _r, _u, p) => h.getVectorStore(id(p), s)),
        POST: on((h, s, r, _u, p) => h.updateVectorStore(r, id(p), s)),
        DELETE: on((h, s, _r, _u, p) => h.deleteVectorStore(id(p), s)),
      },
    },
    {
      path: '/vector_stores/:id/search',
      methods: { POST: on((h, s, r, _u, p) => h.searchVectorStore(r, id(p), s)) },
    },
    {
      path: '/vector_stores/:id/files',
      methods: {
        POST: on((h, s, r, _u, p) => h.createVectorStoreFile(r, id(p), s)),
        GET: on((h, s, _r, url, p) => h.listVectorStoreFiles(url, id(p), s)),
      },
    },
    {
      path: '/vector_stores/:id/files/:file',
      methods: {
        GET: on((h, s, _r, _u, p) => h.getVectorStoreFile(id(p), file(p), s)),
        POST: on((h, s, r, _u, p) => h.updateVectorStoreFile(r, id(p), file(p), s)),
        DELETE: on((h, s, _r, _u, p) => h.deleteVectorStoreFile(id(p), file(p), s)),
      },
    },
    {
      path: '/vector_stores/:id/files/:file/content',
      methods: { GET: on((h, s, _r, _u, p) => h.vectorStoreFileContent(id(p), file(p), s)) },
    },
    {
      path: '/vector_stores/:id/file_batches',
      methods: { POST: on((h, s, r, _u, p) => h.createFileBatch(r, id(p), s)) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch',
      methods: { GET: on((h, s, _r, _u, p) => h.getFileBatch(id(p), batch(p), s)) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch/cancel',
      methods: { POST: on((h, s, _r, _u, p) => h.cancelFileBatch(id(p), batch(p), s)) },
    },
    {
      path: '/vector_stores/:id/file_batches/:batch/files',
      methods: { GET: on((h, s, _r, url, p) => h.listFileBatchFiles(url, id(p), batch(p), s)) },
    },
  ];
}
