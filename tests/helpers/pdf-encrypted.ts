/**
 * A one-page PDF encrypted with the standard security handler (RC4, 40-bit key, revision 2) and an
 * empty user password: pdf.js opens it without asking, decrypting each stream before it inflates it.
 * Built byte by byte, as `pdf.ts` builds its PDFs (xref offsets exact).
 *
 * @example
 * const bytes = encryptedPdf(deflateSync(Buffer.from('BT ... ET')), '/FlateDecode');
 */
import { createHash } from 'node:crypto';

/** The password padding of the standard security handler (PDF 32000-1, 7.6.3.3). */
const PAD = Buffer.from('28BF4E5E4E758A4164004E56FFFA01082E2E00B6D0683E802F0CA9FE6453697A', 'hex');

function rc4(key: Uint8Array, data: Uint8Array): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + (s[i] as number) + (key[i % key.length] as number)) & 0xff;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
  }
  const out = Buffer.alloc(data.byteLength);
  for (let k = 0, i = 0, j = 0; k < data.byteLength; k++) {
    i = (i + 1) & 0xff;
    j = (j + (s[i] as number)) & 0xff;
    [s[i], s[j]] = [s[j] as number, s[i] as number];
    out[k] = (data[k] as number) ^ (s[((s[i] as number) + (s[j] as number)) & 0xff] as number);
  }
  return out;
}

const md5 = (...parts: Uint8Array[]) => createHash('md5').update(Buffer.concat(parts)).digest();

/** The PDF; `encryptKey` is the trailer's key as written (`/Encr#79pt` spells the same name). */
export function encryptedPdf(data: Uint8Array, filter: string, encryptKey = '/Encrypt'): Uint8Array {
  const owner = Buffer.alloc(32, 0x4f);
  const id = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(-4);
  const key = md5(PAD, owner, permissions, id).subarray(0, 5);
  const user = rc4(key, PAD);
  // Object 5's key: the file key, then the object number (3 bytes) and generation (2), little-endian.
  const contentKey = md5(key, Buffer.from([5, 0, 0, 0, 0])).subarray(0, 10);
  const cipher = rc4(contentKey, data);
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [4 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'),
    Buffer.from(
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>',
    ),
    Buffer.concat([
      Buffer.from(`<< /Length ${cipher.byteLength} /Filter ${filter} >>\nstream\n`),
      cipher,
      Buffer.from('\nendstream'),
    ]),
    Buffer.from(
      `<< /Filter /Standard /V 1 /R 2 /O <${owner.toString('hex')}> /U <${user.toString('hex')}> /P -4 >>`,
    ),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  let size = parts[0]?.byteLength ?? 0;
  const offsets = objects.map((body, i) => {
    const at = size;
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    size += obj.byteLength;
    return at;
  });
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) tail += `${String(o).padStart(10, '0')} 00000 n \n`;
  const ids = `<${id.toString('hex')}> <${id.toString('hex')}>`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R ${encryptKey} 6 0 R /ID [${ids}] >>\nstartxref\n${size}\n%%EOF\n`;
  parts.push(Buffer.from(tail));
  return new Uint8Array(Buffer.concat(parts));
}
