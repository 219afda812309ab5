import type { ResponseItem } from 'openai/resources/responses/responses';

/**
 * Whether any item may hold a part that `resolveFileInputs` reads (an `input_file`, or an
 * `input_image` by `file_id` or `blob:` URL): a user-side message's content or a function output
 * with such a part. When none does, resolving would hand the items back unchanged, so the file
 * code (file-inputs.ts, PDF text) is not even loaded (issue 36). One pass over the parts.
 *
 * @example
 * hasFileParts([{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }]) // → false
 */
export function hasFileParts(items: ResponseItem[]): boolean {
  for (const item of items) {
    const list =
      item.type === 'message' && item.role !== 'assistant'
        ? item.content
        : item.type === 'function_call_output'
          ? item.output
          : null;
    if (!Array.isArray(list)) continue;
    for (const part of list as unknown[]) {
      const type = (part as { type?: unknown } | null)?.type;
      if (type === 'input_file' || type === 'input_image') return true;
    }
  }
  return false;
}
