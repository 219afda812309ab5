import { ApiError } from '../common/api-error';

/**
 * Maps any IndexedDB failure to the runtime's one error type. Quota gets its own status and code
 * because it is the one storage failure a user can act on (free space, clear site data).
 *
 * @example
 * try { await tx.done; } catch (err) { throw toStorageError(err); }
 */
export function toStorageError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const name = err instanceof Error || err instanceof DOMException ? err.name : '';
  const detail = err instanceof Error || err instanceof DOMException ? err.message : String(err);
  if (name === 'QuotaExceededError') {
    return new ApiError(
      507,
      'server_error',
      'storage_quota_exceeded',
      null,
      'Browser storage is full: the response could not be saved because this site has used its IndexedDB ' +
        'quota. Delete old responses, free disk space, or clear this site’s data, then retry.',
    );
  }
  const prefix = name ? `IndexedDB ${name}` : 'IndexedDB error';
  return new ApiError(500, 'server_error', 'storage_error', null, detail ? `${prefix}: ${detail}` : prefix);
}

/**
 * The error for calls made after the connection went away (closed by us, by another tab's upgrade,
 * or by the browser). 503 because a reload reopens the database; nothing is wrong with the request.
 *
 * @example
 * throw storageClosed('another tab is upgrading the database');
 */
export function storageClosed(reason: string): ApiError {
  return new ApiError(
    503,
    'server_error',
    'storage_unavailable',
    null,
    `Response storage is unavailable: ${reason}. Reload the page to reopen it.`,
  );
}
