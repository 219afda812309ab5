/**
 * A real llama.cpp `llama-server` for the remote engine's tests: built once per machine by
 * scripts/llama-server.mjs (cached outside the repository), started on a free port with the tiny
 * test GGUF, stopped by the test. Nothing here skips: a server that cannot be built or started fails
 * the test that needs it.
 *
 * @example
 * const server = await startLlamaServer({ apiKey: 'sk-test' });
 * const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test' });
 * await server.stop();
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';
import { ensureLlamaServer } from '../../scripts/llama-server.mjs';

/** Bound on a start (the tiny model is ready in under 2 s on an idle machine). */
const READY_MS = 60_000;
/** Bound on a first build on a fresh machine (about 5 minutes idle; 26.5 measured on a 2-core machine at load 10). */
export const LLAMA_BUILD_MS = 45 * 60_000;

export interface LlamaServerOptions {
  apiKey?: string;
  /** Serve `/v1/embeddings` (`--embeddings --pooling mean`). */
  embeddings?: boolean;
  /** The Hermes 3 tool-use template (deterministic tool calls with `tool_choice: "required"`). */
  toolTemplate?: boolean;
  /** Parallel slots (`-np`); default 1, so a cancelled run's slot is the one `/slots` shows. */
  slots?: number;
  /** Which test model; default the tiny one. */
  model?: 'tiny' | 'tiny-hermes-converted' | 'bench';
  /** A chat template file to render with (`--jinja --chat-template-file`), instead of the GGUF's. */
  templateFile?: string;
  /** Render with the GGUF's own templates, as llama.cpp does by default (`--jinja`). */
  jinja?: boolean;
  threads?: number;
  /** The server's own cap on tokens per answer (`-n`), for requests that send no `max_tokens`. */
  predict?: number;
  /** The id the server lists its model under; default {@link LLAMA_MODEL_ID}. */
  alias?: string;
}

/** The id llama-server lists the test model under. */
export const LLAMA_MODEL_ID = 'intab-tiny';

export interface LlamaServer {
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** `{origin}/v1` */
  baseURL: string;
  port: number;
  proc: ChildProcess;
  /** The server's stderr so far (for failure messages). */
  log(): string;
  stop(): Promise<void>;
}

/** A port free now on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Starts llama-server (building it first when this machine has none) and waits for `/health`. */
export async function startLlamaServer(opts: LlamaServerOptions = {}): Promise<LlamaServer> {
  const [{ bin, template }, { path: model }] = await Promise.all([
    ensureLlamaServer(),
    ensureTestModel(opts.model ?? 'tiny'),
  ]);
  const port = await freePort();
  const args = [
    '-m',
    model,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '-c',
    '4096',
    '-t',
    String(opts.threads ?? 1),
  ];
  args.push(
    '-a',
    opts.alias ?? LLAMA_MODEL_ID,
    '-np',
    String(opts.slots ?? 1),
    '--no-webui',
    '--slots',
    '--metrics',
  );
  if (opts.apiKey) args.push('--api-key', opts.apiKey);
  if (opts.predict) args.push('-n', String(opts.predict));
  if (opts.embeddings) args.push('--embeddings', '--pooling', 'mean');
  if (opts.toolTemplate) args.push('--jinja', '--chat-template-file', template);
  else if (opts.templateFile) args.push('--jinja', '--chat-template-file', opts.templateFile);
  else if (opts.jinja) args.push('--jinja');
  const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (d: Buffer) => {
    log = (log + d.toString()).slice(-20_000);
  };
  proc.stdout?.on('data', keep);
  proc.stderr?.on('data', keep);
  const origin = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL');
      await exited;
    }
  };
  const deadline = Date.now() + READY_MS;
  for (;;) {
    if (proc.exitCode !== null)
      throw new Error(`llama-server exited (${proc.exitCode}) before it was ready:\n${log}`);
    const ok = await fetch(`${origin}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`llama-server was not ready within ${READY_MS} ms:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, baseURL: `${origin}/v1`, port, proc, log: () => log, stop };
}

/**
 * POSTs `body` as JSON to `path` on `server` and reads the JSON answer; a status other than 2xx
 * throws with the server's own text.
 *
 * @example
 * const out = await postJson<{ content: string }>(server, '/completion', { prompt, grammar, seed });
 */
export async function postJson<T>(
  server: LlamaServer,
  path: string,
  body: Record<string, unknown>,
): Promise<T> {
  const res = await fetch(`${server.origin}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`llama-server ${path} ${res.status}: ${text}`);
  return JSON.parse(text) as T;
}
