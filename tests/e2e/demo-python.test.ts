/**
 * Issue 26, security point 1, for `code_interpreter` on the demo page (`/`): nothing Python returns
 * is HTML. With the demo's Python toggle on, the scripted model runs code (`!python …`) in the real
 * Pyodide sandbox that prints markup, writes a file whose name is markup and a `.png` that holds
 * markup; the demo shows the code, the logs and the answer (which names the files) as text, and no
 * image. A real PNG (written with zlib and struct) does show, as one `<img>` with a PNG `data:` URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { domCounts, expectNothingInjected } from './demo-dom-checks';
import { imagesUnder, tagCounts } from './demo-tools.page';
import { type AppSession, openApp } from './harness';

const PRINTED = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
const FILE_NAME = '<img src=x onerror="window.__xss=3">.txt';
const FAKE_PNG = '<img src=x onerror="window.__xss=4"><script>window.__xss=5</script>';
const MESSAGES = '[data-testid="messages"]';
const CHAT_TAGS = ['LI', 'SPAN', 'DIV', 'UL', 'PRE'];
/** A cold Pyodide start in the engine worker comes on top of the first call. */
const TURN_MS = 150_000;

let app: AppSession & { pageErrors: string[] };
beforeAll(async () => {
  app = await openApp();
  await app.page.getByTestId('runtime-status').filter({ hasText: 'ready' }).waitFor({ timeout: 20_000 });
  await app.page.getByTestId('tool-python').check();
});
afterAll(() => app?.close());

async function sendAndWait(text: string): Promise<void> {
  await app.page.getByTestId('chat-input').fill(text);
  await app.page.getByTestId('send').click();
  await app.page.locator('.msg--streaming').waitFor({ state: 'detached', timeout: TURN_MS });
}

describe('the demo shows code_interpreter output as text', () => {
  it('renders markup logs, file names and a non-PNG .png through textContent only', async () => {
    const { page } = app;
    const before = await domCounts(page);
    const code = [
      `print(${JSON.stringify(PRINTED)})`,
      `open('/mnt/data/' + ${JSON.stringify(FILE_NAME)}, 'w').write('x')`,
      `open('/mnt/data/fake.png', 'w').write(${JSON.stringify(FAKE_PNG)})`,
    ].join('\n');
    await sendAndWait(`!python ${code}`);

    const call = page.getByTestId('code-interpreter-call');
    expect(await call.count()).toBe(1);
    expect(await call.locator('.msg__tool-head').textContent()).toMatch(
      /^Ran Python in cntr_\S+ \(completed\)$/,
    );
    expect(await call.getByTestId('ci-code').textContent()).toBe(code);
    expect(await call.getByTestId('ci-logs').textContent()).toBe(`${PRINTED}\n`);
    // The server gives no image output for a .png that is not a PNG, and the demo shows none.
    expect(await call.getByTestId('ci-image').count()).toBe(0);
    const reply = await page.locator('.msg--assistant').last().locator('.msg__text').textContent();
    expect(reply).toContain(PRINTED);
    expect(reply).toContain(`/mnt/data/${FILE_NAME}`);
    expect(reply).toContain('/mnt/data/fake.png');

    await expectNothingInjected(page, before, { watched: ['IMG', 'SCRIPT'], chatTags: CHAT_TAGS });
  }, 180_000);

  it('shows a real PNG the code wrote as one <img> with a data:image/png URL', async () => {
    const { page } = app;
    const before = await page.evaluate(tagCounts, null);
    const code = [
      'import zlib, struct',
      "def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))",
      // 2×3 RGB pixels, each row a filter byte then two red pixels.
      "row = b'\\x00' + b'\\xff\\x00\\x00' * 2",
      "png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 3, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(row * 3)) + chunk(b'IEND', b'')",
      "open('/mnt/data/dot.png', 'wb').write(png)",
    ].join('\n');
    await sendAndWait(`!python ${code}`);

    const call = page.getByTestId('code-interpreter-call').last();
    expect(await call.locator('.msg__tool-head').textContent()).toMatch(/\(completed\)$/);
    const images = await page.evaluate(imagesUnder, MESSAGES);
    expect(images).toHaveLength(1);
    expect(images[0]?.src).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
    // It decoded as a real 2×3 image: the bytes are the PNG Python wrote.
    expect(images[0]?.width).toBe(2);
    const after = await page.evaluate(tagCounts, null);
    expect(after.IMG ?? 0).toBe((before.IMG ?? 0) + 1);
    expect(after.SCRIPT ?? 0).toBe(before.SCRIPT ?? 0);
  }, 180_000);

  it('left no errors in the page', () => {
    expect(app.pageErrors).toEqual([]);
  });
});
