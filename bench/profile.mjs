#!/usr/bin/env node
/**
 * CPU-profiles one request in every context it crosses: the engine worker, the service worker and the
 * page (CDP `Profiler` on each target), and prints the functions with the most self time. It serves the
 * bench build in .tmp/bench-dist, so build that first, unminified for readable names:
 *
 *   BENCH_NO_MINIFY=1 BENCH_ONLY=first BENCH_RUNS=1 npm run bench
 *   node bench/profile.mjs '{"model":"scripted","input":"!words 20000","stream":true}'
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { preview } from 'vite';

const root = resolve(import.meta.dirname, '..');
const body = JSON.parse(process.argv[2] ?? '{"model":"scripted","input":"!words 20000","stream":true}');
const TOP = 18;

const server = await preview({
  root,
  logLevel: 'warn',
  build: { outDir: resolve(root, '.tmp/bench-dist') },
  preview: { host: '127.0.0.1', port: 0 },
});
const baseUrl = server.resolvedUrls?.local[0] ?? 'http://127.0.0.1:4173/';
// Debian's Chromium with the e2e harness's flags (tests/chromium.json).
const browser = await chromium.launch(
  JSON.parse(readFileSync(new URL('../tests/chromium.json', import.meta.url), 'utf8')),
);
try {
  const page = await (await browser.newContext()).newPage();
  await page.goto(new URL('bench/index.html', baseUrl).href);
  await page.evaluate(() => window.intabBench.ready);
  const run = () =>
    page.evaluate((b) => window.intabBench.pageStream(b).then((r) => ({ ...r, text: r.text.length })), body);
  await run(); // warm
  const cdp = await browser.newBrowserCDPSession();
  let nextId = 1;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    const msg = JSON.parse(event.message);
    const waiter = pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(msg.error.message));
    else waiter.resolve(msg.result);
  });
  const send = (sessionId, method, params = {}) =>
    new Promise((res, rej) => {
      const id = nextId++;
      pending.set(id, { resolve: res, reject: rej });
      cdp.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) });
    });
  const { targetInfos } = await cdp.send('Target.getTargets');
  const sessions = [];
  for (const t of targetInfos.filter((t) => ['worker', 'service_worker', 'page'].includes(t.type))) {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: t.targetId, flatten: false });
    await send(sessionId, 'Profiler.enable');
    await send(sessionId, 'Profiler.setSamplingInterval', { interval: 200 });
    await send(sessionId, 'Profiler.start');
    sessions.push({ type: t.type, sessionId });
  }
  const read = await run();
  console.log('read:', JSON.stringify({ ...read, itemIds: undefined, responseIds: undefined }));
  for (const { type, sessionId } of sessions) {
    const { profile } = await send(sessionId, 'Profiler.stop');
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const f = nodes.get(id).callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
      const dt = profile.timeDeltas[i] ?? 0;
      self.set(key, (self.get(key) ?? 0) + dt);
      total += dt;
    });
    console.log(`\n${type}: ${(total / 1000).toFixed(0)} ms sampled, self time`);
    for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, TOP)) {
      console.log(`${(us / 1000).toFixed(1).padStart(8)} ms  ${key}`);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
