/**
 * The Python sandbox in Chromium, through the real service worker: Pyodide served from the app's
 * origin, in its own module worker nested in a dedicated worker (as the engine worker starts it),
 * under the CSP the service worker adds. Runs, state, files, the wall-time limit, and the escapes
 * that must fail (issue 26, section 4 and security points 2 and 3).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_CALL_EVENTS, oneCodeDeltaStep } from '../helpers/code-call-events';
import { type AppSession, openApp } from './harness';
import type { PageRun } from './pages/python-sandbox';
import { streamResponse } from './python-responses.page';

let app: AppSession & { pageErrors: string[] };

/** The wall time per call on this page (a cold start gets Pyodide's load time on top). */
const TIMEOUT_MS = 4_000;

const run = (container: string, code: string): Promise<PageRun> =>
  app.page.evaluate(([c, k]) => window.runPython(c, k), [container, code] as const);

/** Python that tries `attempt` and prints ESCAPED if it worked, else `blocked <error type>`. */
const tries = (attempt: string) =>
  `try:\n${attempt
    .split('\n')
    .map((l) => `    ${l}`)
    .join(
      '\n',
    )}\n    print("ESCAPED")\nexcept BaseException as e:\n    print("blocked", type(e).__name__, str(e)[:200])`;

beforeAll(async () => {
  app = await openApp({
    path: `/tests/e2e/pages/python-sandbox.html#timeoutMs=${TIMEOUT_MS}`,
    testPages: true,
  });
}, 240_000);

afterAll(() => app?.close());

describe('Python sandbox in Chromium', () => {
  it('loads Pyodide from the app origin in a worker nested in a worker, and prints 45', async () => {
    const r = await run('cntr_a', 'print(sum(range(10)))');
    expect(r).toMatchObject({ stdout: '45\n', stderr: '', failed: null });
    console.info(`first call, cold start included: ${Math.round(r.ms)} ms`);
  }, 120_000);

  it('keeps state between calls in one container, not across containers', async () => {
    await run('cntr_a', 'x = 41');
    expect((await run('cntr_a', 'x += 1\nprint(x)')).stdout).toBe('42\n');
    expect((await run('cntr_b', tries('print(x)'))).stdout).toMatch(/^blocked NameError/);
  }, 120_000);

  it('returns a PNG written to /mnt/data', async () => {
    const r = await run(
      'cntr_a',
      `import zlib, struct
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(b'\\x00\\xff\\x00\\x00')) + chunk(b'IEND', b'')
open('/mnt/data/dot.png', 'wb').write(png)`,
    );
    expect(r.failed).toBeNull();
    expect(r.files).toEqual([
      { path: 'dot.png', size: expect.any(Number), head: [137, 80, 78, 71, 13, 10, 26, 10] },
    ]);
  }, 60_000);

  it('ends an infinite loop failed after the wall time, and the next call runs in a fresh sandbox', async () => {
    const r = await run('cntr_a', 'while True: pass');
    // Bound: the 4 s limit, as its message says; without it the call would never end.
    expect(r.failed).toMatch(new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    const next = await run('cntr_a', tries('print(x)'));
    expect(next.stdout).toMatch(/^blocked NameError/);
    expect((await run('cntr_a', 'print("again")')).stdout).toBe('again\n');
  }, 180_000);

  it('serves the sandbox script with its CSP through the service worker, and precaches no Python asset', async () => {
    const csp = await app.page.evaluate(async () =>
      (await fetch('/intab-python/sandbox.js')).headers.get('content-security-policy'),
    );
    expect(csp).toBe(
      `default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src ${app.baseUrl}/intab-python/; worker-src 'none'`,
    );
    const sw = readFileSync(resolve(import.meta.dirname, '../../.tmp/e2e-dist/sw.js'), 'utf8');
    expect(sw).toContain('index.html');
    expect(sw).not.toMatch(/pyodide\.asm|python_stdlib/);
  });

  it('keeps at most two sandboxes alive', async () => {
    await run('cntr_c', 'print(1)');
    expect((await run('cntr_c', 'print(1)')).alive).toBeLessThanOrEqual(2);
  }, 120_000);

  it('runs four concurrent first calls two sandboxes at a time, each to its end (issue 38 §3.5)', async () => {
    const runs = await Promise.all(['q1', 'q2', 'q3', 'q4'].map((c) => run(c, 'print(sum(range(10**6)))')));
    expect(runs.map((r) => [r.stdout, r.failed])).toEqual(Array(4).fill(['499999500000\n', null]));
    expect(Math.max(...runs.map((r) => r.alive))).toBeLessThanOrEqual(2);
  }, 240_000);

  describe('escapes fail', () => {
    const escapes: Record<string, string> = {
      'eval through js.constructor.constructor': 'import js\njs.constructor.constructor("return 1")()',
      'run_js (eval)': 'from pyodide.code import run_js\nrun_js("1")',
      'IndexedDB through the js module': 'import js\njs.indexedDB.open("intab")',
      'IndexedDB through eval': 'import js\njs.constructor.constructor("return indexedDB.open(\'intab\')")()',
      'fetch /v1 with pyfetch': 'from pyodide.http import pyfetch\nawait pyfetch("/v1/models")',
      'fetch through the js module': 'import js\nawait js.fetch("/v1/models")',
      caches: 'import js\nawait js.caches.keys()',
      'a nested worker': 'import js\njs.Worker.new("/intab-python/sandbox.js")',
      'postMessage to forge a reply':
        'import js\njs.postMessage({"id": 1, "stdout": "forged", "stderr": "", "files": []})',
      'postMessage through eval':
        "import js\njs.constructor.constructor(\"postMessage({id:1,stdout:'forged',stderr:'',files:[]})\")()",
    };
    for (const [name, attempt] of Object.entries(escapes))
      it(name, async () => {
        const r = await run('cntr_a', tries(attempt));
        console.info(`${name}: ${r.stdout.trim()}`);
        expect(r.stdout).toMatch(/^blocked /);
        expect(r.stdout).not.toContain('ESCAPED');
      }, 60_000);
  });
});

describe('code_interpreter through the service worker and the engine worker', () => {
  const TOOL = { type: 'code_interpreter', container: { type: 'auto' } };
  const create = (input: string, extra: object = {}) =>
    app.page.evaluate(streamResponse, {
      model: 'scripted',
      input,
      tools: [TOOL],
      include: ['code_interpreter_call.outputs'],
      ...extra,
    });
  const item = (events: Record<string, unknown>[]) =>
    events.find((e) => e.type === 'response.output_item.done')?.item as Record<string, unknown>;
  const final = (events: Record<string, unknown>[]) =>
    events.at(-1)?.response as { id: string; status: string };

  it('prints 45 with the exact event sequence', async () => {
    const { types, events } = await create('!python print(sum(range(10)))');
    expect(oneCodeDeltaStep(types).slice(2, 9)).toEqual([...CODE_CALL_EVENTS]);
    expect(item(events)).toMatchObject({ status: 'completed', outputs: [{ type: 'logs', logs: '45\n' }] });
    expect(types.at(-1)).toBe('response.completed');
  }, 120_000);

  it('ends an infinite loop failed after the timeout; the chain’s next call works in a fresh sandbox', async () => {
    const first = await create('!python x = 1');
    const loop = await create('!python while True: pass', { previous_response_id: final(first.events).id });
    expect(item(loop.events)).toMatchObject({ status: 'failed' });
    expect(final(loop.events).status).toBe('completed');
    const next = await create(`!python ${tries('print(x)')}`, {
      previous_response_id: final(loop.events).id,
    });
    expect(item(next.events)).toMatchObject({
      status: 'completed',
      outputs: [{ type: 'logs', logs: expect.stringMatching(/^blocked NameError/) }],
    });
  }, 120_000);
});
