import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readTar, TAR_END, type TarEntry, TarFormatError, tarHeader, tarPadding } from './tar';

/**
 * The tar of the backups (tar.ts): what is written reads back byte for byte, whatever the
 * pieces the stream arrives in, with names longer than ustar holds; a cut or damaged archive,
 * and entries a backup never has, are refused rather than read as something else.
 */

const when = new Date('2026-01-31T09:15:00Z');

function archive(entries: { name: string; data?: Buffer; dir?: boolean }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const data = e.data ?? Buffer.alloc(0);
    parts.push(tarHeader({ name: e.name, type: e.dir ? 'directory' : 'file', size: data.length, mode: e.dir ? 0o755 : 0o640, mtime: when }));
    if (!e.dir) parts.push(data, tarPadding(data.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}

/** The archive as a stream of pieces of `size` bytes. */
async function* pieces(buf: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let at = 0; at < buf.length; at += size) yield buf.subarray(at, at + size);
}

async function readAll(source: AsyncIterable<Buffer>): Promise<(Omit<TarEntry, 'mtime'> & { data: Buffer; mtime: string })[]> {
  const out = [];
  for await (const e of readTar(source)) {
    const chunks: Buffer[] = [];
    for await (const c of e.body()) chunks.push(Buffer.from(c));
    out.push({ name: e.name, type: e.type, size: e.size, mode: e.mode, mtime: e.mtime.toISOString(), data: Buffer.concat(chunks) });
  }
  return out;
}

describe('backup tar', () => {
  const long = `data/uploads/${'gallery-'.repeat(12)}/${'é'.repeat(30)}.webp`;
  const big = randomBytes(300_000 + 17);
  const entries = [
    { name: 'kindling-backup.json', data: Buffer.from('{"format":1}\n') },
    { name: 'data/uploads', dir: true },
    { name: long, data: big },
    { name: 'data/empty.key', data: Buffer.alloc(0) },
    { name: 'data/uploads/a.webp', data: Buffer.alloc(512, 7) },
  ];

  it.each([1, 7, 511, 512, 4096, 1 << 20])('reads back what it wrote, name, kind, mode, time and bytes (in pieces of %i bytes)', async (size) => {
    const got = await readAll(pieces(archive(entries), size));
    expect(got.map((e) => ({ ...e, data: e.data.toString('base64') }))).toEqual(
      entries.map((e) => ({
        name: e.name,
        type: e.dir ? 'directory' : 'file',
        size: e.dir ? 0 : (e.data?.length ?? 0),
        mode: e.dir ? 0o755 : 0o640,
        mtime: when.toISOString(),
        data: (e.dir ? Buffer.alloc(0) : (e.data ?? Buffer.alloc(0))).toString('base64'),
      })),
    );
    // the long name was carried by a pax header: ustar's field holds 99 bytes
    expect(Buffer.byteLength(long)).toBeGreaterThan(99);
  });

  it('skips an entry whose body is not read', async () => {
    const names: string[] = [];
    for await (const e of readTar(pieces(archive(entries), 1000))) names.push(e.name);
    expect(names).toEqual(entries.map((e) => e.name));
  });

  it('refuses an archive cut short, with the reason', async () => {
    const whole = archive(entries);
    await expect(readAll(pieces(whole.subarray(0, 5000), 512))).rejects.toThrow(new TarFormatError('the archive ends inside a file'));
    await expect(readAll(pieces(whole.subarray(0, whole.length - TAR_END.length), 512))).rejects.toThrow(
      new TarFormatError('the archive ends without its end marker (cut short?)'),
    );
  });

  it('refuses a damaged header', async () => {
    const bad = archive(entries);
    bad[10] ^= 0x20;
    await expect(readAll(pieces(bad, 512))).rejects.toThrow(new TarFormatError('a header is damaged (checksum)'));
  });

  it('refuses a link, which a backup never holds', async () => {
    const link = tarHeader({ name: 'data/evil', type: 'file', size: 0, mode: 0o644, mtime: when });
    link.write('2', 156, 'ascii');
    // the checksum again, over the changed type
    link.write('        ', 148, 'ascii');
    let sum = 0;
    for (const b of link) sum += b;
    link.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    await expect(readAll(pieces(Buffer.concat([link, TAR_END]), 512))).rejects.toThrow(/an entry of a kind backups never have \(type 2\): data\/evil/);
  });
});
