import { describe, expect, it } from 'vitest';
import { describeWorkerFailure } from '../../../src/client/worker-failure';

const url = 'http://localhost:8080/engine-worker.js';
/** A module worker's failed load: a bare `Event`, no message, no URL. */
const bare = new Event('error');
const serving = (body: string, init: ResponseInit) => async () => new Response(body, init);

describe('describeWorkerFailure', () => {
  it('names the URL and the HTTP status of a missing script', async () => {
    const err = await describeWorkerFailure(
      url,
      bare,
      serving('nope', { status: 404, statusText: 'Not Found' }),
    );
    expect(err.message).toMatch(
      /^intab's engine worker \(http:\/\/localhost:8080\/engine-worker\.js\) failed to start: HTTP 404 Not Found\. .*workerUrl/,
    );
  });

  it('names the content type of a script served as a page (an SPA fallback)', async () => {
    const err = await describeWorkerFailure(
      url,
      bare,
      serving('<!doctype html>', { headers: { 'content-type': 'text/html' } }),
    );
    expect(err.message).toContain(`(${url}) failed to start: it is served as 'text/html', not JavaScript.`);
  });

  it('blames an import when the script itself is there', async () => {
    const err = await describeWorkerFailure(
      url,
      bare,
      serving('export {}', { headers: { 'content-type': 'text/javascript' } }),
    );
    expect(err.message).toContain(`(${url}) failed to start: the script loaded but an import in it failed`);
  });

  it('says when the script cannot be fetched at all', async () => {
    const err = await describeWorkerFailure(url, bare, async () =>
      Promise.reject(new TypeError('Failed to fetch')),
    );
    expect(err.message).toContain(
      `(${url}) failed to start: the script could not be fetched (Failed to fetch).`,
    );
  });

  it('passes on what the worker threw, with where, without fetching', async () => {
    const thrown = Object.assign(new Event('error'), {
      message: 'Uncaught Error: no IndexedDB',
      filename: url,
      lineno: 3,
      colno: 9,
    });
    const err = await describeWorkerFailure(url, thrown, () => {
      throw new Error('must not fetch');
    });
    expect(err.message).toBe(
      `intab's engine worker (${url}) failed to start: Uncaught Error: no IndexedDB (${url}:3:9)`,
    );
  });
});
