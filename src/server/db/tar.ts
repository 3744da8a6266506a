/**
 * Just enough of the tar format (POSIX ustar, with pax headers for long names and large files)
 * to write and read Kindling's backup archives, so that `tar -tvf` and `tar -xf` read a backup
 * too. Only regular files and directories: the archive holds nothing else.
 */

const BLOCK = 512;
/** The largest size the 11 octal digits of a ustar header hold (8 GiB - 1); larger sizes go in a pax header. */
const USTAR_MAX_SIZE = 0o77777777777;

export interface TarEntry {
  /** Relative path with `/` between its parts; directories without a trailing slash. */
  name: string;
  type: 'file' | 'directory';
  /** Bytes of a file (0 for a directory). */
  size: number;
  mode: number;
  mtime: Date;
}

function octal(value: number, width: number): string {
  // width - 1 digits and a NUL, as tar readers expect
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(name: string, size: number, type: '0' | '5' | 'x', mode: number, mtime: Date): Buffer {
  const block = Buffer.alloc(BLOCK);
  // a name that does not fit is carried in full by the pax header before this one
  block.write(name.slice(0, 99), 0, 'utf8');
  block.write(octal(mode & 0o7777, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  block.write(octal(Math.min(size, USTAR_MAX_SIZE), 12), 124, 'ascii');
  block.write(octal(Math.max(0, Math.floor(mtime.getTime() / 1000)), 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(type, 156, 'ascii');
  block.write('ustar\u000000', 257, 'ascii');
  let sum = 0;
  for (const b of block) sum += b;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/** One pax record: its length counts itself, so the digits are found by trying. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

function padding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

/**
 * The header blocks of an entry (a pax header first when the name or size does not fit ustar).
 * The entry's bytes follow, then `tarPadding(size)`.
 */
export function tarHeader(entry: TarEntry): Buffer {
  const name = entry.type === 'directory' ? `${entry.name}/` : entry.name;
  const type = entry.type === 'directory' ? '5' : '0';
  const records: string[] = [];
  if (Buffer.byteLength(name) > 99 || /[^\x20-\x7e]/.test(name)) records.push(paxRecord('path', name));
  if (entry.size > USTAR_MAX_SIZE) records.push(paxRecord('size', String(entry.size)));
  const main = header(name, entry.size, type, entry.mode, entry.mtime);
  if (!records.length) return main;
  const pax = Buffer.from(records.join(''), 'utf8');
  return Buffer.concat([header('PaxHeader', pax.length, 'x', 0o644, entry.mtime), pax, padding(pax.length), main]);
}

export const tarPadding = padding;

/** What ends an archive: two zero blocks. */
export const TAR_END = Buffer.alloc(BLOCK * 2);

/** Thrown for an archive that is not a tar this module wrote (or that was cut short). */
export class TarFormatError extends Error {
  override name = 'TarFormatError';
}

/** Reads exact byte counts from a stream of chunks. */
class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private done = false;
  constructor(private readonly source: AsyncIterator<Buffer>) {}

  private async fill(n: number): Promise<boolean> {
    while (this.buffered < n && !this.done) {
      const next = await this.source.next();
      if (next.done) this.done = true;
      else if (next.value.length) {
        this.chunks.push(next.value);
        this.buffered += next.value.length;
      }
    }
    return this.buffered >= n;
  }

  /** Exactly n bytes, or null at the end of the stream. */
  async take(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    this.chunks = all.length > n ? [all.subarray(n)] : [];
    this.buffered = all.length - n;
    return all.subarray(0, n);
  }

  /** n bytes as they arrive, in pieces. */
  async *pieces(n: number): AsyncGenerator<Buffer> {
    let left = n;
    while (left > 0) {
      if (!this.buffered && !(await this.fill(1))) throw new TarFormatError('the archive ends inside a file');
      const first = this.chunks[0];
      const piece = first.length > left ? first.subarray(0, left) : first;
      if (piece === first) this.chunks.shift();
      else this.chunks[0] = first.subarray(left);
      this.buffered -= piece.length;
      left -= piece.length;
      yield piece;
    }
  }
}

function readString(block: Buffer, start: number, length: number): string {
  const raw = block.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function readOctal(block: Buffer, start: number, length: number): number {
  const text = readString(block, start, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new TarFormatError('a header has an unreadable number');
  return text ? Number.parseInt(text, 8) : 0;
}

function checksumOk(block: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : block[i];
  return sum === readOctal(block, 148, 8);
}

function parsePax(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const len = Number(data.subarray(at, space).toString('ascii'));
    if (space < 0 || !Number.isSafeInteger(len) || len <= 0) throw new TarFormatError('a pax header is unreadable');
    const record = data.subarray(space + 1, at + len - 1).toString('utf8');
    const eq = record.indexOf('=');
    out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}

/**
 * The entries of a tar stream, in order. Each entry's `body` must be read to its end (or
 * `skip`ped) before asking for the next entry. Other entry types (links, devices) are refused.
 */
export async function* readTar(source: AsyncIterable<Buffer>): AsyncGenerator<TarEntry & { body: () => AsyncGenerator<Buffer>; skip: () => Promise<void> }> {
  const reader = new ByteReader(source[Symbol.asyncIterator]());
  let pax: Record<string, string> = {};
  for (;;) {
    const block = await reader.take(BLOCK);
    if (!block) throw new TarFormatError('the archive ends without its end marker (cut short?)');
    if (block.every((b) => b === 0)) return;
    if (!checksumOk(block)) throw new TarFormatError('a header is damaged (checksum)');
    const type = String.fromCharCode(block[156] || 0x30);
    const size = pax.size ? Number(pax.size) : readOctal(block, 124, 12);
    if (type === 'x' || type === 'g') {
      const data = await reader.take(size + padding(size).length);
      if (!data) throw new TarFormatError('the archive ends inside a pax header');
      if (type === 'x') pax = parsePax(data.subarray(0, size));
      continue;
    }
    const prefix = readString(block, 345, 155);
    let name = pax.path ?? (prefix ? `${prefix}/${readString(block, 0, 100)}` : readString(block, 0, 100));
    pax = {};
    if (type !== '0' && type !== '5') throw new TarFormatError(`the archive holds an entry of a kind backups never have (type ${type}): ${name}`);
    name = name.replace(/\/+$/, '');
    let consumed = false;
    const body = async function* () {
      consumed = true;
      yield* reader.pieces(size);
      await reader.take(padding(size).length);
    };
    const skip = async () => {
      for await (const _ of body()) {
        // read and dropped
      }
    };
    yield {
      name,
      type: type === '5' ? 'directory' : 'file',
      size: type === '5' ? 0 : size,
      mode: readOctal(block, 100, 8),
      mtime: new Date(readOctal(block, 136, 12) * 1000),
      body,
      skip,
    };
    if (!consumed && type === '0') await skip();
  }
}
