import { invalidRequest, modelNotFound } from '../../common/api-error';
import { lazyModule } from '../../common/lazy-module';
import { pace } from '../../common/pace';
import { unframeToolResult } from '../result-frames';
import { callableTools } from '../tool-formats/request-plan';
import type {
  ChatMessage,
  EmbedResult,
  Engine,
  EngineChunk,
  FunctionToolSpec,
  GenerateRequest,
  ModelInfo,
  TokenLogprob,
} from '../types';
import { nextClientCall } from './client-tool-directive';
import { nextCustomCall } from './custom-directive';
import { nextMcpCall } from './mcp-directive';
import { argumentPieces, nextPythonCode, PYTHON_TOOL } from './python-directive';
import { embedScripted } from './scripted-embedding';
import { countScriptedTokens } from './token-count';

/**
 * The schema-instance writer (with its regex reader for `pattern`s), a chunk of its own: only a
 * request with a schema (a tool's parameters, a `json_schema` format) loads it.
 */
const schemaInstance = lazyModule('scripted model', () => import('./schema-instance'));
const instanceForPaced = async (schema: unknown, param: string): Promise<unknown> =>
  (await schemaInstance()).instanceForPaced(schema, param);

/** The scripted model's id, always listed and served without WebGPU. */
export const SCRIPTED_MODEL_ID = 'scripted';
/** The scripted model's context window, in its (whitespace) tokens. */
export const SCRIPTED_CONTEXT_WINDOW = 4096;

const REFUSAL_TEXT = "I'm sorry, but I can't help with that.";

/**
 * Splits text into the scripted model's tokens: whitespace-separated words, each carrying its leading
 * whitespace, so that the concatenated deltas are exactly the text.
 *
 * @example
 * scriptedTokens('You said: hi') // → ['You', ' said:', ' hi']
 */
export function scriptedTokens(text: string): string[] {
  return text.match(/\s*\S+/g) ?? [];
}

/** The text of a chat message, parts joined by newlines. */
export function messageText(m: ChatMessage): string {
  if (typeof m.content === 'string') return m.content;
  if (m.content === null) return '';
  return m.content.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
}

/**
 * A deterministic model for tests and demos (DESIGN.md "The `scripted` model"). It reads the chat
 * messages the core built and answers by fixed rules, streaming one word per delta.
 *
 * @example
 * const engine = new ScriptedEngine();
 * for await (const c of engine.generate(req, new AbortController().signal)) console.log(c);
 */
export class ScriptedEngine implements Engine {
  models(): ModelInfo[] {
    return [
      {
        id: SCRIPTED_MODEL_ID,
        owned_by: 'intab',
        created: 1_700_000_000,
        contextWindow: SCRIPTED_CONTEXT_WINDOW,
        vision: true,
        capabilities: ['chat', 'embeddings'],
      },
    ];
  }

  /**
   * Before any header goes out: every schema the reply may be written from (the format's, each
   * tool's) has an instance within the scripted model's budget (`SCRIPTED_MAX_INSTANCE_VALUES`), else
   * its 400 now rather than a failed response.
   */
  async preflight(modelId: string, req?: GenerateRequest): Promise<void> {
    if (modelId !== SCRIPTED_MODEL_ID) throw modelNotFound(modelId);
    if (!req) return;
    if (req.format.type === 'json_schema') await instanceForPaced(req.format.schema, 'text.format.schema');
    const callable = new Set(callableTools(req));
    for (const [i, tool] of req.tools.entries())
      if (tool.parameters && callable.has(tool))
        await instanceForPaced(tool.parameters, `tools[${i}].parameters`);
  }

  async load(modelId: string): Promise<void> {
    if (modelId !== SCRIPTED_MODEL_ID) throw modelNotFound(modelId);
  }

  /** A hashed bag of words (see `scriptedEmbedding`): deterministic, and similar for shared words. */
  async embed(modelId: string, inputs: string[], dimensions?: number): Promise<EmbedResult> {
    if (modelId !== SCRIPTED_MODEL_ID) throw modelNotFound(modelId);
    return embedScripted(inputs, dimensions);
  }

  async countTokens(
    _modelId: string,
    messages: ChatMessage[],
    tools: FunctionToolSpec[] = [],
  ): Promise<number> {
    // Counted, not split (a 16 MiB input made 8 million strings), and paced between messages.
    let n = 0;
    for (const m of messages) {
      await pace();
      n += await countScriptedTokens(messageText(m));
      if (m.role === 'assistant')
        for (const c of m.tool_calls ?? []) n += (await countScriptedTokens(c.function.arguments)) + 1;
    }
    for (const t of tools) n += await countScriptedTokens(JSON.stringify(t));
    return n;
  }

  async *generate(req: GenerateRequest, signal: AbortSignal): AsyncIterable<EngineChunk> {
    const inputTokens = await this.countTokens(req.model, req.messages, req.tools);
    if (inputTokens > SCRIPTED_CONTEXT_WINDOW) {
      throw invalidRequest(
        'input',
        `Your input exceeds the context window of this model (${inputTokens} > ${SCRIPTED_CONTEXT_WINDOW} tokens). Please adjust your input and try again.`,
        'context_length_exceeded',
      );
    }
    const plan = await planReply(req);
    const budget = req.maxOutputTokens ?? Number.POSITIVE_INFINITY;
    let emitted = 0;
    let reasoningTokens = 0;
    const done = (finishReason: 'stop' | 'length' | 'tool_calls'): EngineChunk => ({
      type: 'done',
      finishReason,
      usage: { input_tokens: inputTokens, output_tokens: emitted, reasoning_tokens: reasoningTokens },
    });

    let calls = 0;
    for (const part of plan.parts) {
      if (part.type === 'tool_call') {
        if (emitted >= budget) return yield done('length');
        // Python code streams as a model writes it: its arguments in pieces, then the whole call.
        for (const piece of part.name === PYTHON_TOOL ? argumentPieces(part.arguments) : []) {
          await this.tick(plan.delayMs, signal);
          yield { type: 'tool_call_delta', index: calls, name: part.name, arguments_delta: piece };
        }
        calls += 1;
        await this.tick(plan.delayMs, signal);
        emitted += 1;
        yield part;
        continue;
      }
      for (const token of scriptedTokens(part.text)) {
        if (emitted >= budget) return yield done('length');
        await this.tick(plan.delayMs, signal);
        if (plan.fail && emitted === 1) throw new Error('The scripted model failed on purpose (!fail).');
        emitted += 1;
        if (part.type === 'reasoning') reasoningTokens += 1;
        if (part.type === 'text' && req.topLogprobs !== null)
          yield { type: 'text', delta: token, logprobs: [scriptedLogprob(token, req.topLogprobs)] };
        else yield { type: part.type, delta: token };
      }
    }
    if (plan.fail) throw new Error('The scripted model failed on purpose (!fail).');
    yield done(plan.parts.some((p) => p.type === 'tool_call') ? 'tool_calls' : 'stop');
  }

  /** Waits `ms` (abortably) and checks the signal, so an abort stops generation within one token. */
  private async tick(ms: number, signal: AbortSignal): Promise<void> {
    if (ms > 0) await abortableSleep(ms, signal);
    if (signal.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
  }
}

type PlannedPart =
  | { type: 'text' | 'reasoning' | 'refusal'; text: string }
  | { type: 'tool_call'; name: string; arguments: string };

interface ReplyPlan {
  parts: PlannedPart[];
  delayMs: number;
  fail: boolean;
}

/** Decides, from the request alone, everything the scripted model will say. */
async function planReply(req: GenerateRequest): Promise<ReplyPlan> {
  const last = req.messages.at(-1);
  const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
  let text = lastUser ? messageText(lastUser) : '';
  let delayMs = 0;
  // `!delay MS <rest>` may wrap any other directive.
  for (
    let m = /^\s*!delay\s+(\d+)\s*([\s\S]*)$/.exec(text);
    m;
    m = /^\s*!delay\s+(\d+)\s*([\s\S]*)$/.exec(text)
  ) {
    delayMs = Number(m[1]);
    text = m[2] ?? '';
  }
  const parts: PlannedPart[] = [];
  const effort = req.reasoningEffort;
  if (effort && effort !== 'none' && effort !== 'minimal') {
    parts.push({ type: 'reasoning', text: `Thinking about: ${text}` });
  }
  const plan: ReplyPlan = { parts, delayMs, fail: /^\s*!fail\b/.test(text) };
  // The directives call only what the choice lets the reply call; the prompt shows every tool.
  const callable = callableTools(req);
  const offered = { ...req, tools: callable };

  const mcp = nextMcpCall(offered, text);
  if (mcp) {
    parts.push({ type: 'tool_call', ...mcp });
    return plan;
  }
  const custom = nextCustomCall(offered, text);
  if (custom) {
    parts.push({ type: 'tool_call', ...custom });
    return plan;
  }
  const code = nextPythonCode(offered, text);
  if (code !== null) {
    parts.push({ type: 'tool_call', name: PYTHON_TOOL, arguments: JSON.stringify({ code }) });
    return plan;
  }
  const client = nextClientCall(offered, text);
  if (client) {
    parts.push({ type: 'tool_call', ...client });
    return plan;
  }
  const search = nextFileSearch(offered, text);
  if (search !== null) {
    parts.push({
      type: 'tool_call',
      name: FILE_SEARCH_TOOL,
      arguments: JSON.stringify({ queries: [search] }),
    });
    return plan;
  }
  if (last?.role === 'tool') {
    // The tool's own output, without the frame intab gives models (README, testing with scripted).
    parts.push({ type: 'text', text: `Tool ${last.name} returned: ${unframeToolResult(last.content)}` });
    return plan;
  }
  if (last?.role === 'user' && callable.length > 0) {
    const chosen =
      typeof req.toolChoice !== 'object' && req.parallelToolCalls && text.includes('!all-tools')
        ? callable
        : callable.slice(0, 1);
    // parallel_tool_calls:false allows one call; max_tool_calls caps the total.
    const cap = Math.min(req.parallelToolCalls ? chosen.length : 1, req.maxToolCalls ?? chosen.length);
    for (const tool of chosen.slice(0, cap)) {
      const param = `tools[${req.tools.indexOf(tool)}].parameters`;
      const args = asksQueries(tool)
        ? { queries: [text] }
        : ((await instanceForPaced(tool.parameters ?? {}, param)) ?? {});
      parts.push({ type: 'tool_call', name: tool.name, arguments: JSON.stringify(args) });
    }
    if (chosen.length > 0) return plan;
  }
  parts.push(await replyFor(text, req));
  return plan;
}

/** The tool the `!file_search` directive calls: the name the core offers its hosted file_search by. */
const FILE_SEARCH_TOOL = 'file_search';

/**
 * The query of the next `!file_search <query>` directive still to run: each directive in the last
 * user text is one call, one per pass, in order, while a `file_search` tool is offered; null once
 * every one has its result after that message (then the model answers), or when none is offered.
 */
function nextFileSearch(req: GenerateRequest, text: string): string | null {
  if (req.toolChoice === 'none' || !req.tools.some(asksQueries)) return null;
  const queries = text
    .split(/(?:^|\s)!file_search\b/)
    .slice(1)
    .map((q) => q.trim());
  const lastUser = req.messages.findLastIndex((m) => m.role === 'user');
  const ran = req.messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool' && m.name === FILE_SEARCH_TOOL).length;
  return queries[ran] ?? null;
}

/** The hosted `file_search` as offered to models: that name, with a `queries` array parameter. */
function asksQueries(tool: FunctionToolSpec): boolean {
  const props = tool.parameters?.properties as Record<string, unknown> | undefined;
  return tool.name === FILE_SEARCH_TOOL && props?.queries !== undefined;
}

async function replyFor(text: string, req: GenerateRequest): Promise<PlannedPart> {
  if (/^\s*!refuse\b/.test(text)) return { type: 'refusal', text: REFUSAL_TEXT };
  if (req.format.type === 'json_schema')
    return {
      type: 'text',
      text: JSON.stringify(await instanceForPaced(req.format.schema, 'text.format.schema')),
    };
  if (req.format.type === 'json_object') return { type: 'text', text: JSON.stringify({ echo: text }) };
  const words = /^\s*!words\s+(\d+)/.exec(text);
  if (words) {
    const n = Number(words[1]);
    return { type: 'text', text: Array.from({ length: n }, (_, i) => `w${i + 1}`).join(' ') };
  }
  if (/^\s*!transcript\b/.test(text)) {
    return {
      type: 'text',
      text: JSON.stringify(req.messages.map((m) => ({ role: m.role, content: messageText(m) }))),
    };
  }
  return { type: 'text', text: `You said: ${text}` };
}

/**
 * The scripted model's logprob for `token`: certain (logprob 0), with `top` alternatives where the
 * first is the token itself and the k-th other is `alt<k>` (same leading whitespace) at logprob -k.
 *
 * @example
 * scriptedLogprob(' hi', 2) // → { token: ' hi', logprob: 0, bytes: [32,104,105], top_logprobs: [{ token: ' hi', logprob: 0, … }, { token: ' alt1', logprob: -1, … }] }
 */
export function scriptedLogprob(token: string, top: number): TokenLogprob {
  const lead = /^\s*/.exec(token)?.[0] ?? '';
  const entry = (t: string, logprob: number) => ({
    token: t,
    logprob,
    bytes: [...new TextEncoder().encode(t)],
  });
  const alternatives = Array.from({ length: Math.max(0, top - 1) }, (_, k) =>
    entry(`${lead}alt${k + 1}`, -(k + 1)),
  );
  return { ...entry(token, 0), top_logprobs: top > 0 ? [entry(token, 0), ...alternatives] : [] };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason ?? new DOMException('Aborted', 'AbortError'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
