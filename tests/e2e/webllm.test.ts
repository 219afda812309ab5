/**
 * web-llm models in headless Chromium, which has WebGPU (SwiftShader, no shader-f16) but no internet:
 * the prebuilt list is there as soon as `intab.ready` resolves, and a model that cannot be
 * downloaded fails fast with a clear OpenAI error (JSON, stream, loadModel) while `scripted` goes on
 * and nothing is left in progress.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postResponse } from './api.page';
import { type AppSession, openApp } from './harness';
import {
  jsonError,
  loadRightAfterReady,
  modelsAtReady,
  type SeenError,
  sdkStream,
  unfinishedResponses,
} from './webllm.page';

/** A self-hosted q4f32 record whose weights and model library nobody serves. */
const SELF_HOSTED = 'SelfHosted-Qwen3-0.6B-q4f32_1-MLC';
const records = [
  {
    model: 'http://127.0.0.1:9/none/',
    model_id: SELF_HOSTED,
    model_lib: 'http://127.0.0.1:9/none/Qwen3-0.6B-q4f32_1-ctx4k_cs1k-webgpu.wasm',
    overrides: { context_window_size: 4096 },
  },
];
/** web-llm's prebuilt q4f16 build: it needs shader-f16, and its weights are on huggingface.co. */
const PREBUILT = 'Qwen3-0.6B-q4f16_1-MLC';

/**
 * The load watchdog, past the test's timeout: every answer here must be the download's own failure
 * (model_download_failed), never the watchdog's model_load_timeout, and nothing may hang on a
 * missing download (the test's timeout catches that). Which bound fired, not how long it took.
 */
const NEVER_MS = 600_000;

const options = { webllm: { models: records, loadTimeoutMs: NEVER_MS } };
const path = `/tests/e2e/pages/options.html#${encodeURIComponent(JSON.stringify(options))}`;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp({ path, testPages: true });
});
afterAll(() => app?.close());

/** A download failure of `model`, as the engine reports it. */
function expectDownloadFailure(e: Pick<SeenError, 'type' | 'code' | 'message'>, model: string): void {
  expect(e.type).toBe('server_error');
  expect(e.code).toBe('model_download_failed');
  expect(e.message).toContain(`Could not download model '${model}'`);
}

describe('the model list at start-up', () => {
  it("lists web-llm's prebuilt models, the self-hosted one and scripted as soon as ready resolves", async () => {
    const ids = await app.page.evaluate(modelsAtReady);
    expect(ids[0]).toBe('scripted');
    expect(ids).toContain(PREBUILT);
    expect(ids).toContain(SELF_HOSTED);
    expect(ids.length).toBeGreaterThan(50);
  });

  it('lets loadModel right after ready reach web-llm, not model_not_found', async () => {
    await app.page.reload();
    const err = await app.page.evaluate(loadRightAfterReady, PREBUILT);
    expect(err?.code).not.toBe('model_not_found');
    expect(err?.status).toBe(503);
  });
});

describe('a self-hosted model whose files are unreachable', () => {
  it('answers a JSON request with 503 model_download_failed naming the model', async () => {
    const e = await app.page.evaluate(jsonError, SELF_HOSTED);
    expect(e.status).toBe(503);
    expectDownloadFailure(e, SELF_HOSTED);
  });

  it('ends a stream with response.failed carrying that code (read by the openai SDK)', async () => {
    const s = await app.page.evaluate(sdkStream, SELF_HOSTED);
    expect(s.types).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(s.status).toBe('failed');
    expectDownloadFailure(
      { type: 'server_error', code: s.error?.code ?? null, message: s.error?.message ?? '' },
      SELF_HOSTED,
    );
  });

  it('rejects intab.loadModel with the same error', async () => {
    const e = await app.page.evaluate(loadRightAfterReady, SELF_HOSTED);
    expect(e?.status).toBe(503);
    expectDownloadFailure(e as SeenError, SELF_HOSTED);
  });
});

describe('a prebuilt q4f16 model (no shader-f16, no internet)', () => {
  it('answers 503 with a clear code: the download fails, or WebGPU lacks shader-f16', async () => {
    const e = await app.page.evaluate(jsonError, PREBUILT);
    expect(e.status).toBe(503);
    expect(e.type).toBe('server_error');
    // Today the weights' config download fails first (web-llm checks features after fetching it);
    // an engine preflight that checks `required_features` answers webgpu_unavailable instead.
    if (e.code === 'webgpu_unavailable') expect(e.message).toMatch(/shader-f16/);
    else expectDownloadFailure(e, PREBUILT);
  });
});

describe('after the failures', () => {
  it('still answers with scripted, and leaves no response in progress', async () => {
    const res = await app.page.evaluate(postResponse, { model: 'scripted', input: 'still here' });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).toContain('You said: still here');
    expect(await app.page.evaluate(unfinishedResponses)).toEqual([]);
  });

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
