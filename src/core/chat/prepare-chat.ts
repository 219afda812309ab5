import { invalidRequest } from '../../common/api-error';
import { pace } from '../../common/pace';
import { loadCustomGrammarsFor } from '../../engine/custom-grammar';
import { allowedToolNames } from '../../engine/tool-formats/request-plan';
import type { ChatMessage, Engine, GenerateRequest, ModelInfo, OutputFormatSpec } from '../../engine/types';
import type { FileContentReader } from '../hosted/contracts';
import { blobImageReader, type FileFetcher } from '../inputs/input-files';
import { findModel } from '../validation/find-model';
import { requireJsonMention } from '../validation/json-mode';
import { parseOrThrow } from '../validation/params';
import { chatCustomNames } from './chat-custom-tools';
import { readChatFiles } from './chat-files';
import { toEngineMessages } from './chat-messages';
import { type ChatCompletionBody, chatCompletionSchema } from './chat-schema';
import { parseChatToolChoice, parseChatTools } from './chat-tools';

/** Everything a validated chat completion request needs to run. */
export interface PreparedChat {
  body: ChatCompletionBody;
  model: ModelInfo;
  generate: GenerateRequest;
  /** Input tokens as the engine counts them: usage when a stop sequence ends generation early. */
  promptTokens: number;
  stream: boolean;
  /** `stream_options.include_usage`: a last chunk with `usage` and no choices. */
  includeUsage: boolean;
  /** `logprobs: true`: each content chunk, and the choice, carries the tokens' logprobs. */
  logprobs: boolean;
  /** Tool calls past this many are dropped (1 with `parallel_tool_calls: false`). */
  maxToolCalls: number;
  /** The request's custom tools, by name. */
  customTools: Set<string>;
  /** `stop`: generation ends before the first of these, which is not part of the text. */
  stop: string[];
}

/**
 * Validates a chat completion body and turns it into the engine's request, failing with OpenAI's
 * 4xx (unknown or invalid params, a model that cannot chat, a context window too small) before
 * anything is generated. What only OpenAI's platform does is a 400 on its param.
 *
 * @example
 * const prepared = await prepareChat(json, engine);
 */
export async function prepareChat(
  json: unknown,
  engine: Engine,
  origin: string | null = null,
  files: { fetchFile?: FileFetcher; maxBytes?: number; readFile?: FileContentReader } = {},
): Promise<PreparedChat> {
  const body = parseOrThrow(chatCompletionSchema, json);
  // Each step's cost grows with the request; pace() lets the loop turn between them (common/pace.ts).
  await pace();
  const model = findModel(engine, body.model);
  checkChatOptions(body);
  // Custom tools' grammar converters are a chunk of their own, loaded before the parse needs them.
  await loadCustomGrammarsFor(body.tools);
  const tools = parseChatTools(body);
  const choice = parseChatToolChoice(body, tools);
  const format = toFormat(body);
  if (tools.some((t) => t.parameters != null) || format.type === 'json_schema') {
    // A chunk of its own (ajv and re2js), loaded by the first request that carries a schema.
    const { checkRequestSchema } = await import('../validation/request-schema');
    // One tool at a time, as create does: 128 strict tools in one go held the loop (issue 27).
    for (const [i, t] of tools.entries()) {
      if (t.parameters == null) continue;
      await checkRequestSchema(t.parameters, {
        kind: 'function',
        name: t.name,
        param: `tools[${i}].function.parameters`,
      });
      await pace();
    }
    if (format.type === 'json_schema')
      await checkRequestSchema(format.schema, {
        kind: 'response_format',
        name: format.name,
        param: 'response_format',
      });
  }
  await pace();
  const readable = await readChatFiles(body.messages, { ...files, origin });
  const messages = await readBlobImages(
    toEngineMessages(readable, { vision: model.vision, modelId: model.id, origin }),
    { ...files, origin },
  );
  requireJsonMention(messages, format, 'chat');
  // Truncation is never automatic here: Chat Completions has no `truncation`, and OpenAI answers an
  // oversized request with this 400.
  // Counted as generated: with the JSON instruction and the template's thinking switch.
  const promptTokens = await engine.countTokens(model.id, messages, tools, {
    shape: { toolChoice: choice.choice, format, reasoningEffort: body.reasoning_effort ?? null },
  });
  if (promptTokens > model.contextWindow) {
    throw invalidRequest(
      'messages',
      `This model's maximum context length is ${model.contextWindow} tokens. However, your messages resulted in ${promptTokens} tokens. Please reduce the length of the messages.`,
      'context_length_exceeded',
    );
  }
  const logprobs = body.logprobs === true;
  return {
    body,
    model,
    promptTokens,
    stream: body.stream === true,
    includeUsage: body.stream_options?.include_usage === true,
    logprobs,
    maxToolCalls: body.parallel_tool_calls === false ? 1 : Number.POSITIVE_INFINITY,
    customTools: chatCustomNames(body.tools),
    stop: (body.stop ?? []).filter((s) => s !== ''),
    generate: {
      model: model.id,
      messages,
      // Every tool in the prompt whatever the choice (as llama.cpp does): the choice and
      // `allowed_tools` narrow only what the reply may call.
      tools,
      toolChoice: choice.choice,
      allowedTools: allowedToolNames(tools, choice.allowed),
      parallelToolCalls: body.parallel_tool_calls ?? true,
      maxToolCalls: null,
      format,
      reasoningEffort: body.reasoning_effort ?? null,
      maxOutputTokens: body.max_completion_tokens ?? body.max_tokens ?? null,
      temperature: body.temperature ?? null,
      topP: body.top_p ?? null,
      topLogprobs: logprobs ? (body.top_logprobs ?? 0) : null,
      seed: body.seed ?? null,
      stop: (body.stop ?? []).filter((s) => s !== ''),
    },
  };
}

/**
 * The `blob:` image URLs as `data:` URLs, read now (see `readBlobImage`): one that holds no image is
 * a 400 on its `image_url.url`. Without a fetcher they go to the engine as they are. Messages and
 * their parts are one to one with the request's, so the indexes are the request's.
 */
async function readBlobImages(
  messages: ChatMessage[],
  files: { fetchFile?: FileFetcher; maxBytes?: number; origin: string | null },
): Promise<ChatMessage[]> {
  if (!files.fetchFile) return messages;
  // One read per blob URL, however many parts name it.
  const readImage = blobImageReader(files);
  const out: ChatMessage[] = [];
  for (const [i, m] of messages.entries()) {
    if (m.role !== 'user' || typeof m.content === 'string') {
      out.push(m);
      continue;
    }
    const content = await Promise.all(
      m.content.map(async (p, j) =>
        p.type === 'image_url' && p.image_url.url.startsWith('blob:')
          ? {
              ...p,
              image_url: {
                url: await readImage(p.image_url.url, `messages[${i}].content[${j}].image_url.url`),
              },
            }
          : p,
      ),
    );
    out.push({ ...m, content });
  }
  return out;
}

/** Refuses, each with a 400 on its param, what a local model cannot do as asked. */
function checkChatOptions(body: ChatCompletionBody): void {
  if ((body.n ?? 1) > 1) {
    refuse('n', 'intab answers with one choice per request: n must be 1. Send several requests instead.');
  }
  if (body.audio != null || body.modalities?.includes('audio')) {
    refuse(
      body.audio != null ? 'audio' : 'modalities',
      "Audio output is not supported by intab: local models write text only. Use modalities ['text'].",
    );
  }
  if (body.web_search_options !== undefined) {
    refuse('web_search_options', "Web search runs on OpenAI's platform and is not available offline.");
  }
  if (body.functions !== undefined || body.function_call !== undefined) {
    refuse(
      body.functions !== undefined ? 'functions' : 'function_call',
      "The deprecated 'functions' and 'function_call' are not supported by intab: send 'tools' and 'tool_choice' instead.",
    );
  }
  if (body.logit_bias != null && Object.keys(body.logit_bias).length > 0) {
    refuse(
      'logit_bias',
      "logit_bias names token ids of OpenAI's tokenizers, which local models do not share: leave it out.",
    );
  }
  if (body.moderation != null) {
    // Skipping a `block` policy silently would hand back unmoderated text as if it had passed.
    refuse('moderation', "Moderation runs on OpenAI's moderation models, which are not available offline.");
  }
  if (body.top_logprobs != null && body.logprobs !== true) {
    throw invalidRequest('top_logprobs', "'top_logprobs' requires 'logprobs' to be true.", 'invalid_value');
  }
  if (body.stream_options != null && body.stream !== true) {
    throw invalidRequest(
      'stream_options',
      "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      'invalid_value',
    );
  }
}

function refuse(param: string, message: string): never {
  throw invalidRequest(param, message, 'unsupported_value');
}

function toFormat(body: ChatCompletionBody): OutputFormatSpec {
  const f = body.response_format;
  if (!f || f.type === 'text') return { type: 'text' };
  if (f.type === 'json_object') return { type: 'json_object' };
  const { name, schema, strict } = f.json_schema;
  return { type: 'json_schema', name, schema: schema ?? {}, strict: strict ?? false };
}
