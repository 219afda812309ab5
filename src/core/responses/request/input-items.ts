import type {
  ResponseCustomToolCall,
  ResponseInputFile,
  ResponseInputImage,
  ResponseInputText,
  ResponseItem,
  ResponseOutputRefusal,
  ResponseOutputText,
  ResponseReasoningItem,
} from 'openai/resources/responses/responses';
import { clip, invalidRequest, notFound } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import { newId } from '../../http/ids';
import { checkImageUrl } from '../../inputs/input-files';
import { parseOrThrow } from '../../validation/params';
import { type ContentPartParam, type InputItemParam, inputItemSchema, isPlainObject } from './create-schema';
import { unsealReasoning } from './sealed-reasoning';
import { storedClientItem } from './tools/client-tools/client-items';
import { storedCustomItem } from './tools/custom-tool-items';

type InputPart = ResponseInputText | ResponseInputImage | ResponseInputFile;
type OutputPart = ResponseOutputText | ResponseOutputRefusal;

/** Looks up a stored item by id, for `item_reference` inputs. */
export type ItemResolver = (id: string) => Promise<ResponseItem | undefined>;

/** Where the items come from, for errors and URL checks. */
export interface InputContext {
  /** The request field that holds the items, named in errors: `input` (create), `items` (conversations). */
  root?: 'input' | 'items';
  /** The app's origin: an image URL on it that reaches the API is refused (see {@link checkImageUrl}). */
  origin?: string | null;
}

type Ctx = Required<InputContext>;

/**
 * Validates the request's `input` and turns it into stored items: every item gets an id and OpenAI's
 * typed form (easy messages become `message` items with content parts), so `input_items` can list
 * them exactly as OpenAI would.
 *
 * @example
 * await normalizeInput('hi', resolve) // → [{ type: 'message', id: 'msg_…', role: 'user', content: [{ type: 'input_text', text: 'hi' }], status: 'completed' }]
 */
export async function normalizeInput(
  input: string | unknown[] | undefined,
  resolve: ItemResolver,
  context: InputContext = {},
): Promise<ResponseItem[]> {
  if (input === undefined) return [];
  if (typeof input === 'string') return [userText(input)];
  const ctx: Ctx = { root: context.root ?? 'input', origin: context.origin ?? null };
  const out: ResponseItem[] = [];
  for (let i = 0; i < input.length; i++) {
    refuseHostedItem(input[i], `${ctx.root}[${i}]`);
    const item = parseOrThrow(inputItemSchema, input[i], [ctx.root, i]);
    out.push(await toStoredItem(item, `${ctx.root}[${i}]`, resolve, ctx));
    // 22k items take ~300 ms to validate: let the loop turn between them (issue 27, item 4).
    await pace();
  }
  return out;
}

/** Item types of OpenAI's that steer its own servers; said so by name rather than as unknown. */
const HOSTED_ITEMS: Record<string, string> = {
  configuration_update:
    'Configuration updates are not supported by intab: set reasoning and text on the request instead.',
  compaction_trigger:
    'Compaction triggers are not supported by intab: compact with POST /v1/responses/compact and send its compaction item.',
};

function refuseHostedItem(raw: unknown, at: string): void {
  if (!isPlainObject(raw) || typeof raw.type !== 'string') return;
  const why = Object.hasOwn(HOSTED_ITEMS, raw.type) ? HOSTED_ITEMS[raw.type] : undefined;
  if (why) throw invalidRequest(`${at}.type`, why, 'unsupported_value');
}

function userText(text: string): ResponseItem {
  return {
    type: 'message',
    id: newId('msg'),
    role: 'user',
    status: 'completed',
    content: [{ type: 'input_text', text }],
  };
}

async function toStoredItem(
  item: InputItemParam,
  at: string,
  resolve: ItemResolver,
  ctx: Ctx,
): Promise<ResponseItem> {
  switch (item.type) {
    case 'message': {
      const id = item.id ?? newId('msg');
      if (item.role === 'assistant') {
        const content: OutputPart[] =
          typeof item.content === 'string'
            ? [{ type: 'output_text', text: item.content, annotations: [] }]
            : item.content.map((p, j) => outputPart(p, `${at}.content[${j}]`));
        return { type: 'message', id, role: 'assistant', status: item.status ?? 'completed', content };
      }
      const content: InputPart[] =
        typeof item.content === 'string'
          ? [{ type: 'input_text', text: item.content }]
          : item.content.map((p, j) => inputPart(p, `${at}.content[${j}]`, ctx));
      return { type: 'message', id, role: item.role, status: item.status ?? 'completed', content };
    }
    case 'function_call': {
      const { caller, ...call } = item;
      refuseProgramCaller(caller, at);
      return {
        ...call,
        ...(caller && { caller }),
        id: item.id ?? newId('fc'),
        status: item.status ?? 'completed',
      };
    }
    case 'function_call_output': {
      refuseProgramCaller(item.caller, at);
      return {
        type: 'function_call_output',
        id: item.id ?? newId('fco'),
        ...(item.call_id != null && { call_id: item.call_id }),
        ...(item.name != null && { name: item.name }),
        ...(item.namespace != null && { namespace: item.namespace }),
        ...(item.caller && { caller: item.caller }),
        output:
          typeof item.output === 'string'
            ? item.output
            : item.output.map((p, j) => withoutNulls(checkedImage(p, `${at}.output[${j}]`, ctx))),
        status: item.status ?? 'completed',
      };
    }
    case 'custom_tool_call':
      refuseProgramCaller(item.caller, at);
      return storedCustomItem(item as ResponseCustomToolCall, newId);
    case 'custom_tool_call_output': {
      refuseProgramCaller(item.caller, at);
      const output =
        typeof item.output === 'string'
          ? item.output
          : item.output.map((p, j) => withoutNulls(checkedImage(p, `${at}.output[${j}]`, ctx)));
      return storedCustomItem({ ...item, id: item.id ?? undefined, caller: item.caller, output }, newId);
    }
    case 'reasoning':
      return restoreReasoning({ ...item, id: item.id ?? newId('rs') }, at);
    case 'compaction':
      return { type: 'compaction', id: item.id ?? newId('cmp'), encrypted_content: item.encrypted_content };
    case 'file_search_call':
    case 'code_interpreter_call':
    case 'mcp_list_tools':
    case 'mcp_call':
    case 'mcp_approval_request':
      return item as ResponseItem;
    case 'mcp_approval_response':
      return {
        type: 'mcp_approval_response',
        id: item.id ?? newId('mcpa'),
        approval_request_id: item.approval_request_id,
        approve: item.approve,
        ...(item.reason != null && { reason: item.reason }),
      } as ResponseItem;
    case 'shell_call':
    case 'shell_call_output':
    case 'apply_patch_call':
    case 'apply_patch_call_output':
    case 'local_shell_call':
    case 'local_shell_call_output':
    case 'tool_search_call':
    case 'tool_search_output':
      refuseProgramCaller((item as { caller?: { type: string } | null }).caller, at);
      return storedClientItem(item);
    case 'item_reference': {
      const found = await resolve(item.id);
      if (!found) throw notFound(`Item with id '${clip(item.id)}' not found.`, `${at}.id`);
      return found;
    }
  }
}

/** A reasoning item sent back with its `encrypted_content` gets its text back from it. */
function restoreReasoning(item: ResponseReasoningItem, at: string): ResponseReasoningItem {
  if (!item.encrypted_content) return item;
  const sealed = unsealReasoning(item.encrypted_content);
  if (!sealed) {
    throw invalidRequest(
      `${at}.encrypted_content`,
      `The encrypted content for item ${item.id} could not be verified: it was not produced by intab, or it was altered.`,
      'invalid_encrypted_content',
    );
  }
  return {
    ...item,
    content: item.content?.length ? item.content : sealed.content,
    summary: item.summary.length ? item.summary : sealed.summary,
  };
}

/** Programmatic tool calling runs on OpenAI's platform, so no local history has a program caller. */
function refuseProgramCaller(caller: { type: string } | null | undefined, at: string): void {
  if (caller?.type !== 'program') return;
  throw invalidRequest(
    `${at}.caller.type`,
    "Tool calls made by a program are not supported by intab: programmatic tool calling runs on OpenAI's platform.",
    'unsupported_value',
  );
}

function inputPart(p: ContentPartParam, at: string, ctx: Ctx): InputPart {
  if (p.type === 'output_text' || p.type === 'refusal') {
    throw invalidRequest(
      `${at}.type`,
      `Invalid value: '${p.type}'. Supported values are: 'input_text', 'input_image', and 'input_file'.`,
      'invalid_value',
    );
  }
  return withoutNulls(checkedImage(p, at, ctx));
}

/** An image part whose URL passed {@link checkImageUrl}; other parts as they are. */
function checkedImage<P extends InputPartParam>(p: P, at: string, ctx: Ctx): P {
  if (p.type === 'input_image' && p.image_url != null)
    checkImageUrl(p.image_url, `${at}.image_url`, ctx.origin);
  return p;
}

type InputPartParam = Extract<ContentPartParam, { type: InputPart['type'] }>;

/**
 * An input part as stored: images get OpenAI's default `detail`, and a null prompt-cache breakpoint
 * (which the type of a stored part has no room for) is left out.
 */
function withoutNulls(p: InputPartParam): InputPart {
  const { prompt_cache_breakpoint: breakpoint, ...rest } = p;
  const kept = breakpoint ? { prompt_cache_breakpoint: breakpoint } : {};
  if (rest.type === 'input_image') return { ...rest, ...kept, detail: rest.detail ?? 'auto' };
  return { ...rest, ...kept };
}

function outputPart(p: ContentPartParam, at: string): OutputPart {
  if (p.type === 'output_text')
    return { type: 'output_text', text: p.text, annotations: [], logprobs: [] } as OutputPart;
  if (p.type === 'refusal') return p;
  throw invalidRequest(
    `${at}.type`,
    `Invalid value: '${p.type}'. Supported values are: 'output_text' and 'refusal'.`,
    'invalid_value',
  );
}
