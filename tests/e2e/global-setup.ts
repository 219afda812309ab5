/**
 * Builds the tiny test GGUF before any e2e file runs (once per machine: it is cached in
 * .cache/models/ and rebuilt only when its builder changes), so the builds the e2e harness makes
 * serve it at /test-models/ and the wllama tests run real llama.cpp with no download.
 */
import { ensureTestModel } from '../../scripts/build-test-gguf.mjs';

export default async function setup(): Promise<void> {
  const { path, built, manifest } = await ensureTestModel('tiny');
  if (built)
    console.log(`[e2e] built ${path} (${(manifest.bytes / 1e6).toFixed(1)} MB) in ${manifest.buildMs} ms`);
}
