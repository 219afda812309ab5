/**
 * Native llama.cpp for the bench: node-llama-cpp's prebuilt CPU binary on the same GGUF, so every
 * wasm figure has its native counterpart at equal threads (issue 23).
 *
 * node-llama-cpp is not a dependency of the project: with its optional packages it installs ~725 MB,
 * ~610 MB of them CUDA and Vulkan builds the bench never loads. `npm run bench` installs the pinned
 * version with only this platform's CPU binary into `.cache/native/` (gitignored, ~85 MB, a few
 * seconds) the first time it runs, and imports it from there; offline, or on a platform without a
 * prebuilt binary, the native figures say why they were skipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prompt } from './prompts.mjs';
import { pressureWatch, spread } from './spread.mjs';

export const NODE_LLAMA_CPP_VERSION = '3.22.1';
const prefix = resolve(import.meta.dirname, '../.cache/native');
const entry = resolve(prefix, 'node_modules/node-llama-cpp/dist/index.js');
const log = (...args) => console.error('[bench]', ...args);

/** node-llama-cpp's CPU-only binary package for this platform (its own naming). */
function binaryPackage() {
  const platform = { linux: 'linux', darwin: 'mac', win32: 'win' }[process.platform];
  if (!platform) return null;
  const arch = process.arch === 'arm' ? 'armv7l' : process.arch;
  const name = platform === 'mac' && arch === 'arm64' ? 'mac-arm64-metal' : `${platform}-${arch}`;
  return `@node-llama-cpp/${name}@${NODE_LLAMA_CPP_VERSION}`;
}

/**
 * node-llama-cpp, installed into `.cache/native/` on first use; or `{ skipped }` saying why not.
 *
 * @example
 * const lib = await loadNodeLlamaCpp();
 * if ('skipped' in lib) …
 */
export async function loadNodeLlamaCpp() {
  if (process.env.BENCH_NO_NATIVE) return { skipped: 'BENCH_NO_NATIVE is set' };
  if (!existsSync(entry)) {
    const binary = binaryPackage();
    if (!binary)
      return { skipped: `no prebuilt node-llama-cpp binary for ${process.platform}-${process.arch}` };
    log(`installing node-llama-cpp@${NODE_LLAMA_CPP_VERSION} (CPU binary only) into .cache/native …`);
    try {
      // --omit=optional keeps the CUDA/Vulkan builds out; the CPU binary is named instead.
      // --ignore-scripts: the prebuilt binary is used as is, nothing is compiled.
      execFileSync(
        'npm',
        [
          'install',
          '--prefix',
          prefix,
          '--no-save',
          '--ignore-scripts',
          '--no-audit',
          '--no-fund',
          '--omit=optional',
          `node-llama-cpp@${NODE_LLAMA_CPP_VERSION}`,
          binary,
        ],
        // npm is npm.cmd on Windows, which only a shell runs.
        { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000, shell: process.platform === 'win32' },
      );
    } catch (err) {
      const why = String(err.stderr ?? err.message)
        .trim()
        .split('\n')
        .slice(-2)
        .join(' ');
      return { skipped: `could not install node-llama-cpp@${NODE_LLAMA_CPP_VERSION}: ${why}` };
    }
  }
  try {
    return { lib: await import(pathToFileURL(entry).href) };
  } catch (err) {
    return { skipped: `node-llama-cpp did not load: ${err.message}` };
  }
}

/**
 * Prefill and decode tokens/s of native llama.cpp at `threads`, at each prompt size: `runs` fresh
 * contexts per size, `decodeTokens` greedy tokens each. Prefill = prompt tokens / time to the first
 * generated token; decode = the tokens after the first / the time they took (as on the wasm side).
 * Run it with the browser's llama.cpp instances gone: their threads would compete for the cores.
 *
 * @example
 * const curve = await measureNativeCurve(lib, path, { threads: 1, sizes: [128, 1024, 4096], runs: 5 });
 */
export async function measureNativeCurve(
  lib,
  modelPath,
  { threads, sizes, runs, decodeTokens, flashAttention, kvType },
) {
  const llama = await lib.getLlama({ gpu: false, build: 'never', maxThreads: 0, logLevel: 'error' });
  const model = await llama.loadModel({ modelPath });
  const out = {};
  try {
    for (const n of sizes) {
      const prefill = [];
      const decode = [];
      const psi = pressureWatch();
      let promptTokens = 0;
      for (let run = 0; run < runs; run++) {
        const ctx = await model.createContext({
          contextSize: 8192,
          threads,
          batchSize: 512,
          flashAttention,
          experimentalKvCacheKeyType: kvType,
          experimentalKvCacheValueType: kvType,
        });
        const seq = ctx.getSequence();
        const tokens = model.tokenize(prompt(n, 5000 + n + run));
        promptTokens = tokens.length;
        const t = await psi.during(async () => {
          const t0 = performance.now();
          let first = 0;
          let count = 0;
          for await (const _ of seq.evaluate(tokens, { temperature: 0 })) {
            count++;
            if (count === 1) first = performance.now();
            if (count >= decodeTokens) break;
          }
          return { first: first - t0, last: performance.now() - t0, count };
        });
        prefill.push(promptTokens / (t.first / 1000));
        decode.push((t.count - 1) / ((t.last - t.first) / 1000));
        await ctx.dispose();
      }
      out[n] = {
        prompt_tokens: promptTokens,
        prefill_tok_s: spread(prefill, 1),
        decode_tok_s: spread(decode, 2),
        cpu_pressure: psi.summary(),
      };
      log(
        `native ${threads}t @${n}: prefill ${out[n].prefill_tok_s.median} decode ${out[n].decode_tok_s.median} tok/s`,
      );
    }
  } finally {
    await model.dispose();
  }
  return out;
}
