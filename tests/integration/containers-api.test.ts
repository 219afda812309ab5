/**
 * `/v1/containers` through the official `openai` SDK over the core (issue 26, section 4): create,
 * list, retrieve, delete; files upload (multipart and `{file_id}` from `/v1/files`), list, retrieve,
 * content, delete; expiry after 20 idle minutes; and the containers as `code_interpreter` sees them:
 * an uploaded file is readable by the code, a PNG the code writes becomes a container file.
 */
import { NotFoundError, toFile } from 'openai';
import type { ResponseCodeInterpreterToolCall } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTAINERS } from '../../src/core/containers';
import { InProcessPython } from '../helpers/python-runner-double';
import { makeRig } from '../helpers/server';

const runner = new InProcessPython();
let clock = Date.UTC(2026, 0, 1);
const rig = () => makeRig({ python: runner, now: () => clock });
const bytes = (text: string) => new TextEncoder().encode(text);

beforeAll(async () => {
  await runner.run('warm', 'pass', []);
}, 120_000);

describe('/v1/containers', () => {
  it('creates, lists, retrieves and deletes containers', async () => {
    const { client } = rig();
    const a = await client.containers.create({ name: 'a' });
    expect(a).toMatchObject({
      id: expect.stringMatching(/^cntr_/),
      object: 'container',
      name: 'a',
      status: 'running',
      expires_after: { anchor: 'last_active_at', minutes: 20 },
    });
    const b = await client.containers.create({ name: 'b', memory_limit: '4g' });
    const list = await client.containers.list();
    expect(list.data.map((c) => c.id)).toEqual([b.id, a.id]);
    expect((await client.containers.list({ order: 'asc', limit: 1 })).data.map((c) => c.id)).toEqual([a.id]);
    expect(await client.containers.retrieve(a.id)).toEqual(a);
    await client.containers.delete(a.id);
    await expect(client.containers.retrieve(a.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(runner.stopped).toContain(a.id);
  });

  it('uploads (multipart and file_id), lists, retrieves, reads and deletes files', async () => {
    const { client } = rig();
    const c = await client.containers.create({ name: 'files' });
    const up = await client.containers.files.create(c.id, {
      file: await toFile(bytes('a,b\n1,2\n'), 'data.csv'),
    });
    expect(up).toMatchObject({
      id: expect.stringMatching(/^cfile_/),
      object: 'container.file',
      bytes: 8,
      container_id: c.id,
      path: '/mnt/data/data.csv',
      source: 'user',
    });
    const stored = await client.files.create({
      file: await toFile(bytes('hello'), 'note.txt'),
      purpose: 'user_data',
    });
    const ref = await client.containers.files.create(c.id, { file_id: stored.id });
    expect(ref).toMatchObject({ path: '/mnt/data/note.txt', bytes: 5 });
    expect((await client.containers.files.list(c.id)).data.map((f) => f.id)).toEqual([ref.id, up.id]);
    expect(await client.containers.files.retrieve(up.id, { container_id: c.id })).toEqual(up);
    const content = await client.containers.files.content.retrieve(up.id, { container_id: c.id });
    expect(await content.text()).toBe('a,b\n1,2\n');
    await client.containers.files.delete(up.id, { container_id: c.id });
    await expect(client.containers.files.retrieve(up.id, { container_id: c.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('expires a container after 20 idle minutes and stops its sandbox; use keeps it alive', async () => {
    const { client } = rig();
    const kept = await client.containers.create({ name: 'kept' });
    const idle = await client.containers.create({ name: 'idle' });
    clock += 15 * 60_000;
    await client.containers.retrieve(kept.id);
    await client.responses.create({
      model: 'scripted',
      input: '!python print(1)',
      tools: [{ type: 'code_interpreter', container: kept.id }],
    });
    clock += 6 * 60_000;
    await expect(client.containers.retrieve(idle.id)).rejects.toBeInstanceOf(NotFoundError);
    expect(runner.stopped).toContain(idle.id);
    expect((await client.containers.retrieve(kept.id)).id).toBe(kept.id);
  });

  it('refuses bad bodies with OpenAI’s param', async () => {
    const { call } = rig();
    for (const [body, param] of [
      [{}, 'name'],
      [{ name: 'x', memory_limit: '2g' }, 'memory_limit'],
      [{ name: 'x', network_policy: { type: 'allowlist', allowed_domains: ['a.com'] } }, 'network_policy'],
      [{ name: 'x', file_ids: ['file-nope'] }, 'file_ids[0]'],
      [{ name: 'x', expires_after: { anchor: 'created_at', minutes: 5 } }, 'expires_after.anchor'],
    ] as const) {
      const res = await call('POST', '/containers', body);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});

describe('containers and code_interpreter', () => {
  it('makes no container for a response that never runs Python', async () => {
    const { client } = rig();
    const fn = {
      type: 'function' as const,
      name: 'f',
      parameters: { type: 'object', properties: {} },
      strict: false,
    };
    const r = await client.responses.create({
      model: 'scripted',
      input: 'hi',
      tools: [fn, { type: 'code_interpreter', container: { type: 'auto' } }],
    });
    expect(r.output.map((o) => o.type)).toEqual(['function_call']);
    expect((await client.containers.list()).data).toEqual([]);
  });

  it('an auto container past the most containers never drops one the app made: the response is refused first', async () => {
    const { client } = rig();
    const made = [];
    for (const c of (await client.containers.list({ limit: 100 })).data) await client.containers.delete(c.id);
    for (let i = 0; i < MAX_CONTAINERS; i++) {
      made.push(await client.containers.create({ name: `c${i}` }));
      clock += 1000;
    }
    const err = await client.responses
      .create({
        model: 'scripted',
        input: '!python print(1)',
        tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
      })
      .catch((e: unknown) => e as { status: number; param?: string });
    expect(err).toMatchObject({ status: 400, param: 'tools[0].container' });
    expect((await client.containers.retrieve(made[0]?.id as string)).id).toBe(made[0]?.id);
    for (const c of made) await client.containers.delete(c.id);
  });

  it('code reads an uploaded file; a PNG it writes becomes an assistant container file and an image output', async () => {
    const { client } = rig();
    const c = await client.containers.create({ name: 'work' });
    await client.containers.files.create(c.id, { file: await toFile(bytes('3\n4\n'), 'nums.txt') });
    const code = `import zlib, struct
print(sum(int(x) for x in open('/mnt/data/nums.txt')))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(b'\\x00\\xff\\x00\\x00')) + chunk(b'IEND', b'')
open('/mnt/data/plot.png', 'wb').write(png)`;
    const r = await client.responses.create({
      model: 'scripted',
      input: `!python ${code}`,
      tools: [{ type: 'code_interpreter', container: c.id }],
      include: ['code_interpreter_call.outputs'],
    });
    const item = r.output.find(
      (o): o is ResponseCodeInterpreterToolCall => o.type === 'code_interpreter_call',
    );
    expect(item?.container_id).toBe(c.id);
    expect(item?.outputs?.[0]).toEqual({ type: 'logs', logs: '7\n' });
    expect(item?.outputs?.[1]).toMatchObject({
      type: 'image',
      url: expect.stringMatching(/^data:image\/png;base64,/),
    });
    const files = (await client.containers.files.list(c.id)).data;
    const png = files.find((f) => f.path === '/mnt/data/plot.png');
    expect(png).toMatchObject({ source: 'assistant' });
    const content = new Uint8Array(
      await (
        await client.containers.files.content.retrieve(png?.id as string, { container_id: c.id })
      ).arrayBuffer(),
    );
    expect([...content.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });
});
