/** A CDP session into the engine worker (a dedicated worker: Playwright only opens sessions on pages). */
export async function workerSession(browser, page) {
  const cdp = await browser.newBrowserCDPSession();
  const url = page.url();
  const deadline = Date.now() + 10_000;
  let target;
  while (!target && Date.now() < deadline) {
    const { targetInfos } = await cdp.send('Target.getTargets');
    target = targetInfos.find((t) => t.type === 'worker' && new URL(t.url).origin === new URL(url).origin);
    if (!target) await new Promise((r) => setTimeout(r, 100));
  }
  if (!target) throw new Error('engine worker target not found');
  const { sessionId } = await cdp.send('Target.attachToTarget', {
    targetId: target.targetId,
    flatten: false,
  });
  let nextId = 1;
  const pending = new Map();
  cdp.on('Target.receivedMessageFromTarget', (event) => {
    if (event.sessionId !== sessionId) return;
    const msg = JSON.parse(event.message);
    const waiter = msg.id && pending.get(msg.id);
    if (!waiter) return;
    pending.delete(msg.id);
    if (msg.error) waiter.reject(new Error(`${msg.error.message}`));
    else waiter.resolve(msg.result);
  });
  return {
    send(method, params = {}) {
      const id = nextId++;
      return new Promise((res, rej) => {
        pending.set(id, { resolve: res, reject: rej });
        cdp
          .send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params }) })
          .catch(rej);
      });
    },
    detach: () => cdp.detach().catch(() => {}),
  };
}
