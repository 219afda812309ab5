import type { ResponseCodeInterpreterToolCall } from 'openai/resources/responses/responses';
import { bytesToBase64 } from '../../common/base64';
import type { LiveCodeCall } from './code-stream';
import { emitHostedItem, type RunOutput } from './hosted-events';
import type { ContainerFileBytes, PythonBackend } from './python-backend';

/**
 * One `code_interpreter` call inside a response: the `code_interpreter_call` item and its events,
 * the code run in the response's container, and the tool result the model reads next (its logs,
 * the files it wrote, or why it failed).
 */

/** What a response's `code_interpreter` calls run with. */
export interface CodeInterpreterSetup {
  backend: PythonBackend;
  /** The response's container (`cntr_…`). */
  containerId: string;
  /** `include: ['code_interpreter_call.outputs']`: the item carries its outputs; else `outputs: null`. */
  includeOutputs: boolean;
}

/** The tool result and the item's outputs, as the call left them. */
export interface CodeInterpreterResult {
  text: string;
}

/** Image files the code writes come back as `image` outputs, when their bytes are what their name says. */
const IMAGE_SIGNATURES: { ext: RegExp; mime: string; head: number[] }[] = [
  { ext: /\.png$/i, mime: 'image/png', head: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { ext: /\.jpe?g$/i, mime: 'image/jpeg', head: [0xff, 0xd8, 0xff] },
];

/**
 * `file` as a `data:` URL when it is a PNG or JPEG by name and by its first bytes (a file named
 * `.png` holding anything else is not shown as an image), else null.
 *
 * @example
 * imageDataUrl({ path: 'plot.png', bytes }) // → 'data:image/png;base64,iVBORw0KGgo…'
 */
export function imageDataUrl(file: ContainerFileBytes): string | null {
  const kind = IMAGE_SIGNATURES.find((s) => s.ext.test(file.path));
  if (!kind?.head.every((b, i) => file.bytes[i] === b)) return null;
  return `data:${kind.mime};base64,${bytesToBase64(file.bytes)}`;
}

/**
 * Runs one call to `python` with the model's `args` (`{"code": "…"}`), emitting its item, and
 * returns the tool result for the model. Arguments with no code end the item `failed` and tell the
 * model why; so does a call the sandbox could not finish (a timeout: the container restarts empty).
 * With `ctx.live`, the item was added while the model wrote the call, and its code streamed: the
 * events go on from there (the rest of the code, if the whole call holds more, and `.done` with it).
 *
 * @example
 * const { text } = await runCodeInterpreterCall(run.hostedOutput(), '{"code":"print(1)"}', setup, { id, signal });
 */
export async function runCodeInterpreterCall(
  out: RunOutput,
  args: string,
  setup: CodeInterpreterSetup,
  ctx: { id: string; signal: AbortSignal; live?: LiveCodeCall },
): Promise<CodeInterpreterResult> {
  const code = parseCode(args);
  const item: ResponseCodeInterpreterToolCall = ctx.live?.item ?? {
    id: ctx.id,
    type: 'code_interpreter_call',
    status: 'in_progress',
    code: '',
    container_id: setup.containerId,
    outputs: null,
  };
  item.code = code ?? '';
  const started = ctx.live ? { outputIndex: ctx.live.outputIndex, sent: ctx.live.sent } : undefined;
  const result: CodeInterpreterResult = {
    text: 'python was called without code: call it with {"code": "…"}.',
  };
  await emitHostedItem(
    out,
    item,
    async () => {
      if (code === null) return 'failed';
      const run = await setup.backend.run(setup.containerId, code, ctx.signal);
      if (ctx.signal.aborted) throw new Error('The response was stopped while Python ran.');
      const logs = [run.stdout, run.stderr].filter((s) => s !== '').join('');
      const outputs: NonNullable<ResponseCodeInterpreterToolCall['outputs']> = [];
      if (logs !== '') outputs.push({ type: 'logs', logs });
      for (const file of run.files) {
        const url = imageDataUrl(file);
        if (url) outputs.push({ type: 'image', url });
      }
      if (setup.includeOutputs) item.outputs = outputs;
      result.text = toolResult(run.stdout, run.stderr, run.files, run.failed);
      return run.failed === null ? 'completed' : 'failed';
    },
    () => ctx.signal.aborted,
    started,
  );
  return result;
}

/** What the model reads after a call: its output, its errors, the files it wrote, or why it failed. */
function toolResult(
  stdout: string,
  stderr: string,
  files: ContainerFileBytes[],
  failed: string | null,
): string {
  if (failed !== null) return `The code did not finish: ${failed}`;
  const parts: string[] = [];
  if (stdout !== '') parts.push(stdout);
  if (stderr !== '') parts.push(`stderr:\n${stderr}`);
  if (files.length > 0) parts.push(`Files written: ${files.map((f) => `/mnt/data/${f.path}`).join(', ')}`);
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}

/** The model's code: `{"code": "…"}`; else null. */
function parseCode(args: string): string | null {
  try {
    const parsed = JSON.parse(args) as { code?: unknown } | null;
    return typeof parsed?.code === 'string' && parsed.code.trim() !== '' ? parsed.code : null;
  } catch {
    return null;
  }
}
