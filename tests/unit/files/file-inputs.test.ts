import type { ResponseItem } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { invalidRequest } from '../../../src/common/api-error';
import type { FileContentReader } from '../../../src/core/hosted/contracts';
import { resolveFileInputs } from '../../../src/core/inputs/file-inputs';
import { fileText, READ_TEXT } from '../../../src/core/inputs/input-files';
import { fastestBlock } from '../../helpers/event-loop';

const user = (...content: Record<string, unknown>[]) =>
  ({ type: 'message', role: 'user', content }) as unknown as ResponseItem;

function reader(files: Record<string, { filename: string; bytes: Uint8Array }>) {
  const calls: string[] = [];
  const read: FileContentReader = async (id, param) => {
    calls.push(id);
    const file = files[id];
    if (!file) throw invalidRequest(param, `No such File object: ${id}`);
    return { id, purpose: 'user_data', ...file };
  };
  return { read, calls };
}

describe('resolveFileInputs', () => {
  it('reads each file id once per request, however many parts name it', async () => {
    const { read, calls } = reader({
      'file-a': { filename: 'a.txt', bytes: new TextEncoder().encode('alpha') },
    });
    const parts = Array.from({ length: 50 }, () => ({ type: 'input_file', file_id: 'file-a' }));
    const [item] = await resolveFileInputs([user(...parts)], { origin: null, readFile: read }, 0);
    expect(calls).toEqual(['file-a']);
    const content = (item as unknown as { content: Record<string | symbol, unknown>[] }).content;
    expect(content.map((p) => fileText(p as never, 'x'))).toEqual(Array(50).fill('[file: a.txt]\nalpha'));
  });

  it('a binary stored file is refused by the translation with its hint, not decoded', async () => {
    const { read } = reader({ 'file-z': { filename: 'a.zip', bytes: new Uint8Array([0x50, 0x4b, 3, 4]) } });
    const [item] = await resolveFileInputs(
      [user({ type: 'input_file', file_id: 'file-z' })],
      { origin: null, readFile: read },
      0,
    );
    const part = (item as unknown as { content: Record<string | symbol, unknown>[] }).content[0];
    expect(part?.[READ_TEXT]).toBeUndefined();
    expect(() => fileText(part as never, 'input[0].content[0]')).toThrow(
      /Unsupported file type 'application\/zip'/,
    );
  });

  // Issue 22: a file near the body cap by file_id. Encoding it to a base64 data URL and decoding it
  // again (what a file_url costs) held Node's loop ~1.4 s for 8 MiB; the text is decoded once.
  it('reads an 8 MiB text file by id without holding the loop', async () => {
    const bytes = new TextEncoder().encode('word '.repeat((8 * 1024 * 1024) / 5));
    const { read } = reader({ 'file-big': { filename: 'big.txt', bytes } });
    const { value, blockedMs } = await fastestBlock(3, () =>
      resolveFileInputs(
        [user({ type: 'input_file', file_id: 'file-big' })],
        { origin: null, readFile: read },
        0,
      ),
    );
    const part = (value[0] as unknown as { content: Record<string | symbol, unknown>[] }).content[0];
    expect(String(part?.[READ_TEXT]).length).toBe(bytes.length);
    expect(blockedMs).toBeLessThan(100);
  });

  it('names the part in a request item, and nothing in history', async () => {
    const { read } = reader({});
    const err = (firstInput: number) =>
      resolveFileInputs(
        [user({ type: 'input_file', file_id: 'file-x' })],
        { origin: null, readFile: read },
        firstInput,
      ).then(
        () => null,
        (e: { param?: string | null }) => e,
      );
    expect((await err(0))?.param).toBe('input[0].content[0].file_id');
    expect((await err(1))?.param).toBeNull();
    const withoutReader = await resolveFileInputs(
      [user({ type: 'input_image', file_id: 'file-x' })],
      { origin: null },
      0,
    ).catch((e: { status: number; param: string }) => e);
    expect(withoutReader).toMatchObject({ status: 400, param: 'input[0].content[0].file_id' });
  });
});
