import { pace } from '../../common/pace';
import { type FileInputOptions, type FileReads, readFilePart } from '../inputs/file-inputs';
import type { ChatMessageParam } from './chat-schema';

/**
 * Chat Completions' `file` parts made readable before the translation, as Responses' `input_file`s
 * are: a `file.file_id` is read from `/v1/files`, a PDF (by id or `file_data`) becomes its text.
 * Errors name `messages[i].content[j].file.…`. Each file id is read once per request.
 *
 * @example
 * const readable = await readChatFiles(body.messages, { origin, readFile });
 */
export async function readChatFiles(
  messages: ChatMessageParam[],
  opts: FileInputOptions,
): Promise<ChatMessageParam[]> {
  const reads: FileReads = new Map();
  const out: ChatMessageParam[] = [];
  for (const [i, m] of messages.entries()) {
    await pace();
    if (m.role !== 'user' || typeof m.content === 'string' || !m.content.some((p) => p.type === 'file')) {
      out.push(m);
      continue;
    }
    const content: typeof m.content = [];
    for (const [j, p] of m.content.entries()) {
      if (p.type !== 'file') content.push(p);
      else
        content.push({
          ...p,
          file: await readFilePart(p.file, `messages[${i}].content[${j}].file`, opts, reads),
        });
    }
    out.push({ ...m, content });
  }
  return out;
}
