import type { FunctionTool, ResponseItem } from 'openai/resources/responses/responses';
import { invalidRequest } from '../../../common/api-error';
import { pace } from '../../../common/pace';
import { loadCustomGrammarsFor } from '../../../engine/custom-grammar';
import { allowedToolNames } from '../../../engine/tool-formats/request-plan';
import {
  type Engine,
  type GenerateRequest,
  type ModelInfo,
  type OutputFormatSpec,
  promptShape,
} from '../../../engine/types';
import type { ResponseStore } from '../../../store/types';
import type { FileContentReader, FileSearchBackend, McpConnector, PythonBackend } from '../../hosted';
import { lazyModule } from '../../http/lazy-module';
import { hasFileParts } from '../../inputs/has-file-parts';
import type { FileFetcher } from '../../inputs/input-files';
import { findModel } from '../../validation/find-model';
import { requireJsonMention } from '../../validation/json-mode';
import { parseOrThrow } from '../../validation/params';
import { type CreateResponseBody, createResponseSchema } from './create-schema';
import { fitContext } from './fit-context';
import { conversationHistory, previousHistory } from './history';
import { checkIncludes } from './includes';
import { normalizeInput } from './input-items';
import { checkToolPairing, checkUniqueIds } from './item-pairing';
import { checkLocalOptions } from './local-options';
import type { RunOptions } from './run-options';
import { expandCompactions } from './sealed-compaction';
import { toChatMessages } from './to-chat-messages';
import { clientCallMap, loadClientToolsFor } from './tools/client-tools';
import { type CodeInterpreterPlan, planCodeInterpreter } from './tools/code-interpreter-tool';
import { type HostedPlan, planHosted } from './tools/hosted-tools';
import { planMcp } from './tools/mcp-plan';
import { parseToolChoice, parseTools, type RequestTool, toSpecs } from './tools/tool-options';

/** Everything a validated create request needs to run. */
export interface PreparedCreate {
  body: CreateResponseBody;
  model: ModelInfo;
  tools: RequestTool[];
  /** History (from previous_response_id or the conversation) followed by this request's input, with ids. */
  inputItems: ResponseItem[];
  /** This request's own input items, with ids: what a conversation gets appended. */
  newItems: ResponseItem[];
  conversationId: string | null;
  generate: GenerateRequest;
  /** How the run shapes output beyond the engine's chunks (logprobs, summaries, tool-call cap). */
  run: Omit<RunOptions, 'now'>;
  /** The hosted tools the run's loop serves itself. */
  hosted: HostedPlan & { codeInterpreter: CodeInterpreterPlan | null };
}

/** input_file / input_image resolution (file-inputs.ts, with PDF text): loaded by the first request with a file part. */
const fileInputs = lazyModule('file inputs', () => import('../../inputs/file-inputs'));

/**
 * Validates a create body and resolves everything it refers to (model, previous response, item
 * references), failing with OpenAI's 4xx before anything is generated or stored.
 *
 * @example
 * const prepared = await prepareCreate(json, { engine, store });
 */
export async function prepareCreate(
  json: unknown,
  deps: {
    engine: Engine;
    store: ResponseStore;
    fetchFile?: FileFetcher;
    /** Reads `input_file.file_id` / `input_image.file_id` from `/v1/files`. */
    readFile?: FileContentReader;
    origin?: string | null;
    /** Also the most a `file_url` may bring in: no more than the body could have carried inline. */
    maxBodyBytes?: number;
    /** The request's signal: long preparation (truncation) stops when the client goes away. */
    signal?: AbortSignal;
    /** The vector stores `file_search` searches; without it a `file_search` tool is a 400. */
    fileSearch?: FileSearchBackend;
    /** Opens remote MCP servers for the `mcp` tool; without it an `mcp` tool is a 400. */
    mcp?: McpConnector;
    /** The containers `code_interpreter` runs in; without it a `code_interpreter` tool is a 400. */
    python?: PythonBackend;
  },
  opts: { fit: boolean } = { fit: true },
): Promise<PreparedCreate> {
  // Each step's cost grows with the request; pace() lets the loop turn between them (common/pace.ts).
  const body = parseOrThrow(createResponseSchema, json);
  await pace();
  const model = findModel(deps.engine, body.model);
  checkLocalOptions(body);
  const include = parseInclude(body);
  // Custom tools' grammar converters and the client tools' code are chunks of their own, loaded
  // before the parse needs them.
  await loadCustomGrammarsFor(body.tools);
  await loadClientToolsFor(body.tools);
  const { tools, mcpRun } = parseTools(body, deps.origin ?? null);
  const toolChoice = parseToolChoice(body, tools);
  await checkSchemas(
    body,
    tools.filter((t): t is FunctionTool => t.type === 'function'),
  );
  const hosted = await planHosted(body, tools, toolChoice, include, deps.fileSearch);
  await pace();

  if (body.conversation != null && body.previous_response_id != null) {
    throw invalidRequest(
      'conversation',
      'Mutually exclusive parameters: conversation and previous_response_id. Ensure you are only providing one of them.',
      'mutually_exclusive_parameters',
    );
  }
  const conversationId =
    typeof body.conversation === 'string' ? body.conversation : (body.conversation?.id ?? null);
  const history = conversationId
    ? await conversationHistory(deps.store, conversationId)
    : await previousHistory(deps.store, body.previous_response_id ?? null);
  const input = await normalizeInput(
    body.input,
    (id) => deps.store.findItem(id) as Promise<ResponseItem | undefined>,
    { origin: deps.origin ?? null },
  );
  checkUniqueIds(input);
  await pace();
  const inputItems = [...history, ...input];
  const codeInterpreter = planCodeInterpreter(
    tools,
    toolChoice.choice === 'none' ? null : toolChoice.allowed,
    include,
    deps.python,
    inputItems,
  );
  const expanded = expandCompactions(inputItems);
  checkToolPairing(expanded);
  const firstInput = expanded.length - expandCompactions(input).length;
  // Each of these walks every item: 22k of them take 10–30 ms apiece (issue 27, item 4).
  await pace();
  // Files, images by id or blob URL, and PDF text: their code loads only for a request that has some.
  const readable = hasFileParts(expanded)
    ? await (await fileInputs()).resolveFileInputs(
        expanded,
        {
          fetchFile: deps.fetchFile,
          readFile: deps.readFile,
          origin: deps.origin ?? null,
          maxBytes: deps.maxBodyBytes,
        },
        firstInput,
      )
    : expanded;
  await pace();
  const messages = toChatMessages(body.instructions ?? null, readable, {
    vision: model.vision,
    modelId: model.id,
    firstInput,
  });
  await pace();
  requireJsonMention(messages, toFormat(body));
  // Listing needs the network: it comes after every 400 the request could get.
  const mcp = await planMcp(mcpRun, toolChoice, expanded, firstInput, {
    connector: deps.mcp,
    signal: deps.signal,
    functionNames: new Set(
      tools.flatMap((t) => (t.type === 'function' || t.type === 'custom' ? [t.name] : [])),
    ),
  });
  // The prompt shows every tool whatever the choice (as llama.cpp does); the choice and
  // `allowed_tools` only narrow what the reply may call.
  const specs = [...tools.flatMap((t) => (t.type === 'mcp' ? [] : toSpecs(t))), ...mcp.specs];
  const callable = new Set([
    ...toolChoice.allowed.flatMap((t) => (t.type === 'mcp' ? [] : toSpecs(t).map((s) => s.name))),
    ...mcp.callable,
  ]);
  const choice = mcp.forced ? { name: mcp.forced } : toolChoice.choice;
  await pace();
  const generate: GenerateRequest = {
    model: model.id,
    messages,
    tools: specs,
    toolChoice: choice,
    allowedTools: allowedToolNames(
      specs,
      [...callable].map((name) => ({ name })),
    ),
    parallelToolCalls: body.parallel_tool_calls ?? true,
    // max_tool_calls counts built-in tool calls only (the loop applies it); nothing caps function calls but parallel_tool_calls.
    maxToolCalls: null,
    format: toFormat(body),
    reasoningEffort: body.reasoning?.effort ?? null,
    maxOutputTokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    topLogprobs: include.has('message.output_text.logprobs') ? (body.top_logprobs ?? 0) : null,
  };
  if (opts.fit) {
    // The engine's checks (schemas it can hold, its queue) come before the context is fitted: a
    // schema no grammar can hold is refused on its own param whatever the input's length, although
    // the count renders that schema into the prompt too.
    await deps.engine.preflight?.(model.id, generate);
    generate.messages = await fitContext(messages, {
      tools: specs,
      model,
      truncation: body.truncation ?? 'disabled',
      engine: deps.engine,
      signal: deps.signal,
      shape: promptShape(generate),
    });
  }

  return {
    body,
    model,
    tools,
    inputItems,
    newItems: input,
    conversationId,
    generate,
    run: {
      logprobs: include.has('message.output_text.logprobs'),
      summary: Boolean(body.reasoning?.summary ?? body.reasoning?.generate_summary),
      encryptedContent: include.has('reasoning.encrypted_content'),
      maxToolCalls: body.parallel_tool_calls === false ? 1 : Number.POSITIVE_INFINITY,
      customTools: new Set(tools.flatMap((t) => (t.type === 'custom' ? [t.name] : []))),
      clientCalls: clientCallMap(tools),
    },
    hosted: { ...hosted, mcp: mcp.plan, codeInterpreter },
  };
}

/** Each function's parameters and the `json_schema` format, checked before anything runs. */
async function checkSchemas(body: CreateResponseBody, tools: FunctionTool[]): Promise<void> {
  const f = body.text?.format;
  if (!tools.some((t) => t.parameters != null) && f?.type !== 'json_schema') return;
  // A chunk of its own (ajv and re2js), loaded by the first request that carries a schema.
  const { checkRequestSchema } = await import('../../validation/request-schema');
  for (const [i, t] of tools.entries()) {
    if (t.parameters == null) continue;
    await checkRequestSchema(t.parameters, {
      kind: 'function',
      name: t.name,
      param: `tools[${i}].parameters`,
    });
    await pace();
  }
  if (f?.type === 'json_schema')
    await checkRequestSchema(f.schema, {
      kind: 'response_format',
      name: f.name,
      param: 'text.format.schema',
    });
}

function parseInclude(body: CreateResponseBody): Set<string> {
  return checkIncludes(body.include ?? []);
}

function toFormat(body: CreateResponseBody): OutputFormatSpec {
  const f = body.text?.format;
  if (!f || f.type === 'text') return { type: 'text' };
  if (f.type === 'json_object') return { type: 'json_object' };
  return { type: 'json_schema', name: f.name, schema: f.schema, strict: f.strict ?? false };
}
