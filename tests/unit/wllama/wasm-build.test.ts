/**
 * Which llama.cpp wasm runs a model (issues 34, 42): intab's threaded SIMD build where the worker is
 * cross-origin isolated with SharedArrayBuffer, its single-threaded SIMD build first where it is not
 * (and after the threaded one where it is), wllama's stock build for WebGPU, for big models and last
 * when the others fail to start; `/v1/models` says which one runs, and a model no build starts fails
 * with every build's cause.
 */
import { describe, expect, it } from 'vitest';
import {
  allBuildsFailed,
  chooseWasmBuilds,
  type ThreadSupport,
  threadSupport,
  WASM32_MAX_MODEL_BYTES,
  type WasmBuild,
} from '../../../src/engine/wllama/wasm-build';
import { tinyGguf } from '../../helpers/tiny-gguf';
import { servedWasm } from '../../helpers/wasm-files';
import { fakeWllamaEngine } from '../../helpers/wllama-engine-rig';
import { FakeWllama } from '../../helpers/wllama-fakes';

const simd = { wasmUrl: '/simd/wllama.wasm', jsUrl: '/simd/wllama.js' };
const simdSingleThread = { wasmUrl: '/simd-st/wllama.wasm', jsUrl: '/simd-st/wllama.js' };
const both = { simd, simdSingleThread };
const isolated: ThreadSupport = { crossOriginIsolated: true, sharedArrayBuffer: true };
const noSab: ThreadSupport = { crossOriginIsolated: false, sharedArrayBuffer: false };
const cpu = { device: 'cpu' as const, modelBytes: 93e6 };

describe('chooseWasmBuilds', () => {
  it('tries the threaded SIMD build first where the worker is isolated with SharedArrayBuffer', () => {
    expect(chooseWasmBuilds(both, cpu, isolated)).toEqual(['simd', 'simd-st', 'stock']);
    const big = { device: 'cpu' as const, modelBytes: WASM32_MAX_MODEL_BYTES };
    expect(chooseWasmBuilds(both, big, isolated)).toEqual(['simd', 'simd-st', 'stock']);
  });

  it('tries the single-threaded SIMD build first without SharedArrayBuffer', () => {
    expect(chooseWasmBuilds(both, cpu, noSab)).toEqual(['simd-st', 'stock']);
  });

  it('never tries the threaded build without SharedArrayBuffer, nor on a page that is not isolated', () => {
    // Isolated but without the constructor (a browser that hides it), or the other way round.
    const hidden = { crossOriginIsolated: true, sharedArrayBuffer: false };
    const notIsolated = { crossOriginIsolated: false, sharedArrayBuffer: true };
    for (const support of [noSab, hidden, notIsolated]) {
      expect(chooseWasmBuilds(both, cpu, support)).not.toContain('simd');
      expect(chooseWasmBuilds({ simd }, cpu, support)).toEqual(['stock']);
    }
  });

  it('keeps the stock build alone for WebGPU and for models too big for wasm32', () => {
    expect(chooseWasmBuilds(both, { device: 'webgpu', modelBytes: 93e6 }, isolated)).toEqual(['stock']);
    const tooBig = { device: 'cpu' as const, modelBytes: WASM32_MAX_MODEL_BYTES + 1 };
    expect(chooseWasmBuilds(both, tooBig, noSab)).toEqual(['stock']);
    expect(chooseWasmBuilds({}, cpu, isolated)).toEqual(['stock']);
  });

  it('reads the realm: isolation and the SharedArrayBuffer constructor', () => {
    expect(threadSupport({ crossOriginIsolated: true, SharedArrayBuffer })).toEqual(isolated);
    expect(threadSupport({})).toEqual(noSab);
    expect(threadSupport({ crossOriginIsolated: 'yes', SharedArrayBuffer: {} })).toEqual(noSab);
  });
});

describe('allBuildsFailed', () => {
  it("is a 500 whose message names each build and its cause, llama.cpp's words included", () => {
    const err = allBuildsFailed('tiny', [
      { build: 'simd', err: new ReferenceError("Can't find variable: SharedArrayBuffer"), trouble: '' },
      { build: 'simd-st', err: new Error('Aborted(OOM)'), trouble: 'failed to allocate buffer' },
      {
        build: 'stock',
        err: new TypeError("Conversion from 'BigInt' to 'number' is not allowed"),
        trouble: '',
      },
    ]);
    expect(err.status).toBe(500);
    expect(err.code).toBe('model_load_failed');
    expect(err.message).toBe(
      "llama.cpp could not load model 'tiny' with any of its wasm builds: " +
        "simd (threads): ReferenceError: Can't find variable: SharedArrayBuffer; " +
        'simd-st (1 thread): Aborted(OOM) (llama.cpp said: failed to allocate buffer); ' +
        "stock: TypeError: Conversion from 'BigInt' to 'number' is not allowed",
    );
  });
});

/** An engine whose fakes record the build and threads they were made for; `fail` lists builds that fail to load. */
function rig(opts: { fail?: WasmBuild[]; device?: 'cpu' | 'webgpu'; support?: ThreadSupport } = {}) {
  const builds: WasmBuild[] = [];
  const threads: unknown[] = [];
  const causes: Record<WasmBuild, Error> = {
    simd: new ReferenceError("Can't find variable: SharedArrayBuffer"),
    'simd-st': new Error('WebAssembly.instantiate(): Compiling function failed'),
    stock: new TypeError("Conversion from 'BigInt' to 'number' is not allowed"),
  };
  const rigged = fakeWllamaEngine({
    models: [{ id: 'm', files: [tinyGguf()], device: opts.device ?? 'cpu', threads: 2 }],
    hasWebGpuF16: async () => true,
    simdWasm: simd,
    simdSingleThreadWasm: simdSingleThread,
    threadSupport: () => opts.support ?? isolated,
    fetchWasm: servedWasm().fetch,
    createWllama: (_config, build) => {
      builds.push(build);
      const fake = new FakeWllama();
      const load = fake.loadModel.bind(fake);
      fake.loadModel = async (blobs, params) => {
        threads.push(params?.n_threads);
        if (opts.fail?.includes(build)) throw causes[build];
        return load(blobs, params);
      };
      return fake;
    },
  });
  return { ...rigged, builds, threads };
}

const listed = (engine: ReturnType<typeof rig>['engine']) => engine.models().find((m) => m.id === 'm');

describe('the loader', () => {
  it('starts a CPU model on the threaded SIMD build where isolated, and lists it as such once loaded', async () => {
    const { engine, builds, threads } = rig();
    expect(listed(engine)?.wasm).toBeUndefined();
    await engine.load('m');
    expect(builds).toEqual(['simd']);
    expect(threads).toEqual([2]);
    expect(listed(engine)).toMatchObject({ device: 'cpu', wasm: 'simd' });
  });

  it('starts it on the single-threaded SIMD build, with 1 thread, without SharedArrayBuffer', async () => {
    const { engine, builds, threads } = rig({ support: noSab });
    await engine.load('m');
    expect(builds).toEqual(['simd-st']);
    expect(threads).toEqual([1]);
    expect(listed(engine)).toMatchObject({ device: 'cpu', wasm: 'simd-st', threads: 1 });
  });

  it('tries each build in order until one starts', async () => {
    const { engine, builds, threads } = rig({ fail: ['simd'] });
    await engine.load('m');
    expect(builds).toEqual(['simd', 'simd-st']);
    expect(threads).toEqual([2, 1]);
    expect(listed(engine)).toMatchObject({ wasm: 'simd-st' });
    const next = rig({ fail: ['simd', 'simd-st'] });
    await next.engine.load('m');
    expect(next.builds).toEqual(['simd', 'simd-st', 'stock']);
    expect(listed(next.engine)).toMatchObject({ wasm: 'stock' });
  });

  it('fails with every build and its cause when none starts', async () => {
    const { engine, builds } = rig({ fail: ['simd', 'simd-st', 'stock'] });
    const err = await engine.load('m').then(
      () => null,
      (e: unknown) => e as { status: number; message: string },
    );
    expect(builds).toEqual(['simd', 'simd-st', 'stock']);
    expect(err?.status).toBe(500);
    expect(err?.message).toMatch(
      /simd \(threads\): ReferenceError: Can't find variable: SharedArrayBuffer; simd-st \(1 thread\): WebAssembly\.instantiate\(\): Compiling function failed; stock: TypeError: Conversion from 'BigInt' to 'number' is not allowed$/,
    );
  });

  it('starts a WebGPU model on the stock build (the SIMD builds have no WebGPU)', async () => {
    const { engine, builds } = rig({ device: 'webgpu' });
    await engine.load('m');
    expect(builds).toEqual(['stock']);
  });
});
