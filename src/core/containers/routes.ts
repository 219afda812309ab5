import * as z from 'zod/mini';
import { invalidRequest } from '../../common/api-error';
import { dataHeaders } from '../files/file-routes';
import type { FileContentReader } from '../hosted';
import { readBodyCapped } from '../http/capped-read';
import { jsonResponse, readJsonObject } from '../http/json-body';
import { type Route, type RouteTable, routesOf } from '../http/lazy-module';
import { listBody, parseLimit } from '../http/list-params';
import { parseOrThrow } from '../validation/params';
import { containerFileIds, containerMemoryLimit, containerNetworkPolicy } from './container-params';
import type { ContainerRegistry } from './registry';
import type { CONTAINER_ROUTES } from './route-shape';

type Params = Record<string, string>;

/** What the routes need beside the registry: the body cap, and `/v1/files` for `file_ids` / `{file_id}`. */
export interface ContainerRouteDeps {
  maxBodyBytes: number;
  readFile?: FileContentReader;
}

const createSchema = z.strictObject({
  name: z.string().check(z.minLength(1)).check(z.maxLength(256)),
  expires_after: z.optional(
    z.strictObject({
      anchor: z.literal('last_active_at'),
      minutes: z.number().check(z.int()).check(z.minimum(1)).check(z.maximum(20)),
    }),
  ),
  file_ids: z.optional(containerFileIds),
  memory_limit: z.optional(containerMemoryLimit),
  network_policy: z.optional(containerNetworkPolicy),
});

const fileRefSchema = z.strictObject({ file_id: z.string().check(z.minLength(1)) });

/**
 * Every `/v1/containers` route (paths without `/v1`, as the server's router files them), for
 * `createResponsesServer` to add to its own: create, list, retrieve, delete; and files: upload
 * (multipart `file`, or JSON `{file_id}` from `/v1/files`), list, retrieve, content, delete.
 *
 * @example
 * routes.push(...containerRoutes(registry, deps));
 */
export function containerRoutes(reg: ContainerRegistry, deps: ContainerRouteDeps): Route[] {
  const id = (p: Params) => p.id as string;
  const table: RouteTable<typeof CONTAINER_ROUTES> = {
    '/containers': {
      POST: async (r) => jsonResponse(await create(r, reg, deps)),
      GET: async (_r, url) => jsonResponse(page(reg.list(), url)),
    },
    '/containers/:id': {
      GET: async (_r, _u, p) => jsonResponse(reg.get(id(p))),
      DELETE: async (_r, _u, p) => {
        reg.delete(id(p));
        return jsonResponse({ id: id(p), object: 'container.deleted', deleted: true });
      },
    },
    '/containers/:id/files': {
      POST: async (r, _u, p) => jsonResponse(await upload(r, id(p), reg, deps)),
      GET: async (_r, url, p) => jsonResponse(page(reg.files(id(p)), url)),
    },
    '/containers/:id/files/:file': {
      GET: async (_r, _u, p) => jsonResponse(reg.file(id(p), p.file as string).meta),
      DELETE: async (_r, _u, p) => {
        reg.deleteFile(id(p), p.file as string);
        return jsonResponse({ id: p.file, object: 'container.file.deleted', deleted: true });
      },
    },
    '/containers/:id/files/:file/content': {
      GET: async (_r, _u, p) => {
        const f = reg.file(id(p), p.file as string);
        // Code-written bytes are data: never a page or a script on the app's origin.
        const name = f.meta.path.slice(f.meta.path.lastIndexOf('/') + 1);
        return new Response(f.data as Uint8Array<ArrayBuffer>, {
          headers: dataHeaders('application/octet-stream', f.data.byteLength, name),
        });
      },
    },
  };
  return routesOf(table);
}

/** A cursor page of `items` (newest first; `order=asc` reverses), from `after`. */
function page<T extends { id: string }>(items: T[], url: URL) {
  const limit = parseLimit(url);
  const order = url.searchParams.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc')
    throw invalidRequest('order', "Invalid value for 'order': expected 'asc' or 'desc'.", 'invalid_value');
  const sorted = order === 'asc' ? [...items].reverse() : items;
  const after = url.searchParams.get('after');
  const start = after ? sorted.findIndex((i) => i.id === after) + 1 : 0;
  const data = sorted.slice(start, start + limit);
  return listBody(data, start + limit < sorted.length);
}

async function create(request: Request, reg: ContainerRegistry, deps: ContainerRouteDeps) {
  const body = parseOrThrow(createSchema, await readJsonObject(request, deps.maxBodyBytes));
  if (body.network_policy && body.network_policy.type !== 'disabled')
    throw invalidRequest(
      'network_policy',
      "Network policy 'allowlist' is not supported by intab: the Python sandbox has no network.",
      'unsupported_value',
    );
  // Every file is read before the container is made: a bad id makes nothing.
  const files = await Promise.all(
    (body.file_ids ?? []).map((fid, i) => requireReader(deps)(fid, `file_ids[${i}]`)),
  );
  const obj = reg.create({
    name: body.name,
    minutes: body.expires_after?.minutes,
    memoryLimit: body.memory_limit,
  });
  try {
    for (const f of files) reg.addFile(obj.id, f.filename, f.bytes, 'user');
  } catch (err) {
    // A file it cannot hold (a bad name, its bounds) makes no container.
    reg.delete(obj.id);
    throw err;
  }
  return obj;
}

async function upload(request: Request, id: string, reg: ContainerRegistry, deps: ContainerRouteDeps) {
  reg.get(id);
  const type = request.headers.get('content-type') ?? '';
  if (/^application\/json/i.test(type)) {
    const { file_id } = parseOrThrow(fileRefSchema, await readJsonObject(request, deps.maxBodyBytes));
    const f = await requireReader(deps)(file_id, 'file_id');
    return reg.addFile(id, f.filename, f.bytes, 'user');
  }
  if (!/^multipart\/form-data\s*;/i.test(type))
    throw invalidRequest(
      null,
      'Send the file as multipart/form-data (a `file` part) or JSON {"file_id": "…"}.',
    );
  const body = await readBodyCapped(request, deps.maxBodyBytes);
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': type } }).formData();
  } catch {
    throw invalidRequest(null, 'The multipart/form-data body could not be parsed.');
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string')
    throw invalidRequest(
      'file',
      "Missing required parameter: 'file' (a file part).",
      'missing_required_parameter',
    );
  return reg.addFile(id, file.name || 'upload', new Uint8Array(await file.arrayBuffer()), 'user');
}

function requireReader(deps: ContainerRouteDeps): FileContentReader {
  if (!deps.readFile) throw invalidRequest('file_id', 'Files from /v1/files are not available here.');
  return deps.readFile;
}
