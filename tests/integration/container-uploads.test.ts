/**
 * Container uploads through the official SDK (issue 38 §3.7): a multipart file named to leave
 * `/mnt/data`, or to sit where another file is a folder, is a 400 on `file`; the container's files
 * are unchanged.
 */
import { describe, expect, it } from 'vitest';
import type { ContainerFileBytes, PythonRunResult } from '../../src/core/hosted';
import { makeRig } from '../helpers/server';

const runner = {
  async run(_id: string, _code: string, _files: ContainerFileBytes[]): Promise<PythonRunResult> {
    return { stdout: '', stderr: '', files: [], failed: null };
  },
  stop() {},
};

/** A multipart upload whose part names the file exactly `name` (a browser keeps slashes; Node's SDK would not). */
function rawUpload(name: string): RequestInit {
  const boundary = 'intab-test-boundary';
  const body = [
    `--${boundary}`,
    `Content-Disposition: form-data; name="file"; filename="${name}"`,
    'Content-Type: text/plain',
    '',
    'x',
    `--${boundary}--`,
    '',
  ].join('\r\n');
  return { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
}

describe('container uploads stay inside /mnt/data', () => {
  it('refuses names that leave it or clash, with a 400 on file', async () => {
    const { client, server } = makeRig({ python: runner });
    const c = await client.containers.create({ name: 'paths' });
    const url = `http://intab.test/v1/containers/${c.id}/files`;
    expect((await server.fetch(new Request(url, rawUpload('a.txt')))).status).toBe(200);
    for (const name of [
      '../../tmp/pwned.txt',
      'a.txt/b.txt',
      ['x', '..', '..', '..', 'etc', 'passwd'].join('/'),
      '/mnt/data/../x',
    ]) {
      const res = await server.fetch(new Request(url, rawUpload(name)));
      expect(res.status, name).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param, name).toBe('file');
    }
    expect((await client.containers.files.list(c.id)).data.map((f) => f.path)).toEqual(['/mnt/data/a.txt']);
  });
});
