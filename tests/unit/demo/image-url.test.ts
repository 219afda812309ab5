/**
 * The demo's one gate from tool output to `<img>` (src/demo/hosted/image-url.ts): a PNG or JPEG
 * `data:` URL whose bytes carry that format's signature passes; every other URL is refused, so the
 * page shows it as text (issue 26, security point 1).
 */
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { safeImageUrl } from '../../../src/demo/hosted/image-url';

const b64 = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64');
const PNG_HEAD = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const png = Buffer.concat([PNG_HEAD, deflateSync(Buffer.from('pixels'))]);
const jpeg = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);

describe('safeImageUrl', () => {
  it('passes PNG and JPEG data URLs whose bytes start with their signature', () => {
    const pngUrl = `data:image/png;base64,${b64(png)}`;
    const jpegUrl = `data:image/jpeg;base64,${b64(jpeg)}`;
    expect(safeImageUrl(pngUrl)).toBe(pngUrl);
    expect(safeImageUrl(jpegUrl)).toBe(jpegUrl);
  });

  it('refuses a PNG or JPEG data URL whose bytes are markup or the other format', () => {
    const markup = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
    expect(safeImageUrl(`data:image/png;base64,${b64(markup)}`)).toBeNull();
    expect(safeImageUrl(`data:image/jpeg;base64,${b64(markup)}`)).toBeNull();
    expect(safeImageUrl(`data:image/jpeg;base64,${b64(png)}`)).toBeNull();
    expect(safeImageUrl(`data:image/png;base64,${b64(jpeg)}`)).toBeNull();
    // The PNG signature cut short is not a PNG.
    expect(safeImageUrl(`data:image/png;base64,${b64(PNG_HEAD.slice(0, 6))}`)).toBeNull();
  });

  it('refuses every other kind of URL, whatever its bytes', () => {
    for (const url of [
      `data:image/svg+xml;base64,${b64('<svg onload="window.__xss=1"/>')}`,
      `data:text/html;base64,${b64(png)}`,
      `data:image/png,${'\u0089PNG'}`,
      `data:image/png;base64,${b64(png)}"><img src=x onerror=alert(1)>`,
      `data:image/png;charset=utf-8;base64,${b64(png)}`,
      'javascript:alert(1)',
      'https://example.com/a.png',
      'x',
      '',
    ])
      expect(safeImageUrl(url), url).toBeNull();
  });
});
