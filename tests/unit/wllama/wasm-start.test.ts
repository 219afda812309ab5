/**
 * A SIMD build that cannot start falls back to the next build at once (issue 43): its files are
 * checked first (an HTML page answered for the wasm or its glue is refused without starting it), the
 * glue's abort (emscripten 3.1.6 logs it and rejects nothing) ends the build, a build that has a next
 * one has a bound of its own to start, and a worker without wasm SIMD never tries the SIMD builds.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  checkSimdFiles,
  STARTED_LINE,
  WASM_START_MS,
  WasmStartError,
} from '../../../src/engine/wllama/limits/wasm-start';
import { hasWasmSimd, type WasmBuild } from '../../../src/engine/wllama/wasm-build';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { htmlPage, servedWasm } from '../../helpers/wasm-files';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';
import { FakeWllama } from '../../helpers/wllama-fakes';

const simd = { wasmUrl: '/simd/wllama.wasm', jsUrl: '/simd/wllama.js' };
const simdSingleThread = { wasmUrl: '/simd-st/wllama.wasm', jsUrl: '/simd-st/wllama.js' };

/** How a build's fake behaves once asked to load: as the real one does in each case. */
type Behaviour =
  | 'ok'
  /** emscripten 3.1.6's glue given a wasm it cannot compile: it logs, aborts, and rejects nothing. */
  | 'glue-abort'
  /** Never starts and logs nothing (a pthread pool that never comes up). */
  | 'silent'
  /** Starts (wllama logs that it calls llama.cpp's start), then loads the model for `loadMs`. */
  | 'slow-load';

function rig(opts: {
  behave?: Partial<Record<WasmBuild, Behaviour>>;
  answers?: Record<string, () => Response>;
  validateWasm?: (bytes: Uint8Array<ArrayBuffer>) => boolean;
}) {
  const builds: WasmBuild[] = [];
  const fakes: FakeWllama[] = [];
  const files = servedWasm(opts.answers);
  const { engine } = fakeWllamaEngine({
    models: ['m', 'n'].map((id) => ({ id, files: [tinyGguf()], device: 'cpu' as const, threads: 2 })),
    simdWasm: simd,
    simdSingleThreadWasm: simdSingleThread,
    threadSupport: () => ({ crossOriginIsolated: true, sharedArrayBuffer: true }),
    fetchWasm: files.fetch,
    ...(opts.validateWasm ? { validateWasm: opts.validateWasm } : {}),
    createWllama: (config, build) => {
      builds.push(build);
      const fake = new FakeWllama();
      fakes.push(fake);
      const logger = config.logger as { log(...a: unknown[]): void; debug(...a: unknown[]): void };
      const behaviour = opts.behave?.[build] ?? 'ok';
      fake.loadModel = async () => {
        if (behaviour === 'glue-abort') {
          const why =
            'CompileError: WebAssembly.instantiate(): expected magic word 00 61 73 6d, found 3c 21 64 6f @+0';
          logger.log(`failed to asynchronously prepare wasm: ${why}`);
          logger.log(`Aborted(${why})`);
        }
        if (behaviour === 'slow-load') {
          logger.debug(STARTED_LINE);
          return new Promise<void>((resolve) => setTimeout(resolve, WASM_START_MS * 2));
        }
        if (behaviour !== 'ok') return new Promise<void>(() => {});
      };
      return fake;
    },
  });
  return { engine, builds, fakes, files };
}

/** Lets every pending promise run without any timer firing. */
async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await Promise.resolve();
  await vi.advanceTimersByTimeAsync(0);
}

const loaded = (engine: ReturnType<typeof rig>['engine']) => engine.models().find((m) => m.id === 'm')?.wasm;

afterEach(() => {
  vi.useRealTimers();
});

describe("a SIMD build's files", () => {
  it('an HTML page answered for the wasm: the build is not started, the next one is, with no timer', async () => {
    vi.useFakeTimers();
    const { engine, builds, files } = rig({ answers: { '/simd/wllama.wasm': htmlPage } });
    const load = engine.load('m');
    await settle();
    await load;
    expect(builds).toEqual(['simd-st']);
    expect(loaded(engine)).toBe('simd-st');
    expect(files.asked).toContain('http://localhost/simd/wllama.wasm');
  });

  it('an HTML page answered for the glue: the same', async () => {
    vi.useFakeTimers();
    const { engine, builds } = rig({
      answers: { '/simd/wllama.js': htmlPage, '/simd-st/wllama.wasm': htmlPage },
    });
    const load = engine.load('m');
    await settle();
    await load;
    expect(builds).toEqual(['stock']);
  });

  it('names each refused file and what came in its place when no build starts', async () => {
    const { engine } = rig({
      answers: {
        '/simd/wllama.wasm': htmlPage,
        '/simd-st/wllama.wasm': () => new Response('nope', { status: 404 }),
      },
      behave: { stock: 'glue-abort' },
    });
    const err = (await engine.load('m').catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(500);
    expect(err.message).toContain(
      'simd (threads): WasmStartError: http://localhost/simd/wllama.wasm is not WebAssembly (text/html; charset=utf-8, it begins "<!doctyp"); ',
    );
    expect(err.message).toContain(
      'simd-st (1 thread): WasmStartError: http://localhost/simd-st/wllama.wasm answered HTTP 404; ',
    );
    expect(err.message).toContain(
      'stock: WasmStartError: its wasm did not start: failed to asynchronously prepare wasm',
    );
  });

  it('checkSimdFiles returns the glue it checked, and refuses a wasm cut before its version', async () => {
    const files = servedWasm({ '/short.wasm': () => new Response(Uint8Array.of(0, 0x61, 0x73)) });
    const glue = await checkSimdFiles(
      { wasmUrl: 'http://localhost/a.wasm', jsUrl: 'http://localhost/a.js' },
      files.fetch,
    );
    expect(glue).toMatch(/^var Module/);
    await expect(
      checkSimdFiles({ wasmUrl: 'http://localhost/short.wasm', jsUrl: 'http://localhost/a.js' }, files.fetch),
    ).rejects.toThrow(WasmStartError);
  });

  it('checks a build once: loading a second model does not fetch its files again', async () => {
    const { engine, files } = rig({});
    await engine.load('m');
    const asked = files.asked.length;
    await engine.load('n');
    expect(asked).toBe(2);
    expect(files.asked.length).toBe(asked);
  });
});

describe('starting a build', () => {
  it("the glue's abort (logged, nothing rejected) ends the build at once: the next one starts, no timer", async () => {
    vi.useFakeTimers();
    const { engine, builds, fakes } = rig({ behave: { simd: 'glue-abort' } });
    const load = engine.load('m');
    await settle();
    await load;
    expect(builds).toEqual(['simd', 'simd-st']);
    expect(loaded(engine)).toBe('simd-st');
    expect(fakes[0]?.exited).toBe(true);
  });

  it('a build that does not start within its bound gives way to the next one', async () => {
    vi.useFakeTimers();
    const { engine, builds, fakes } = rig({ behave: { simd: 'silent' } });
    const load = engine.load('m');
    await vi.advanceTimersByTimeAsync(WASM_START_MS - 1);
    expect(builds).toEqual(['simd']);
    await vi.advanceTimersByTimeAsync(1);
    await load;
    expect(builds).toEqual(['simd', 'simd-st']);
    expect(fakes[0]?.exited).toBe(true);
  });

  it('the bound is on the start only: a started build loads its model past it', async () => {
    vi.useFakeTimers();
    const { engine, builds } = rig({ behave: { simd: 'slow-load' } });
    const load = engine.load('m');
    await vi.advanceTimersByTimeAsync(WASM_START_MS * 2);
    await load;
    expect(builds).toEqual(['simd']);
  });

  it('the last build has no bound of its own: only the load bound ends it', async () => {
    vi.useFakeTimers();
    const { engine, builds } = rig({ behave: { simd: 'silent', 'simd-st': 'silent', stock: 'silent' } });
    const err = engine.load('m').then(
      () => ({ code: 'loaded' }),
      (e: unknown) => e as { code: string },
    );
    await vi.advanceTimersByTimeAsync(WASM_START_MS * 2);
    expect(builds).toEqual(['simd', 'simd-st', 'stock']);
    await vi.advanceTimersByTimeAsync(120_000);
    expect((await err).code).toBe('model_load_timeout');
  });
});

describe('wasm SIMD', () => {
  it('a worker whose WebAssembly.validate refuses SIMD skips both SIMD builds and fetches neither', async () => {
    const { engine, builds, files } = rig({ validateWasm: () => false });
    await engine.load('m');
    expect(builds).toEqual(['stock']);
    expect(files.asked).toEqual([]);
  });

  it('is asked with a SIMD module, which this realm validates', () => {
    const seen: Uint8Array[] = [];
    const validate = (bytes: Uint8Array<ArrayBuffer>) => {
      seen.push(bytes);
      return WebAssembly.validate(bytes);
    };
    expect(hasWasmSimd(validate)).toBe(true);
    expect([...(seen[0] ?? new Uint8Array()).subarray(0, 4)]).toEqual([0, 0x61, 0x73, 0x6d]);
    expect(
      hasWasmSimd(() => {
        throw new Error('no WebAssembly');
      }),
    ).toBe(false);
  });
});

describe('what the watch relies on', () => {
  it("wllama logs the started line, and the SIMD builds' glue logs the abort it watches for", () => {
    const wllama = readFileSync(
      new URL('../../../node_modules/@wllama/wllama/esm/index.js', import.meta.url),
      'utf8',
    );
    expect(wllama).toContain(STARTED_LINE);
    for (const dir of ['simd', 'simd-st']) {
      const glue = readFileSync(new URL(`../../../wasm/${dir}/wllama.js`, import.meta.url), 'utf8');
      expect(glue).toContain('failed to asynchronously prepare wasm: ');
      expect(glue).toContain('what = "Aborted(" + what + ")"');
    }
  });
});
