/**
 * Git's pack formats for the checkpoint store (checkpoint-objects.ts), and the journal a session appends its objects
 * to. A journal (`objects/pack/tmp_journal_<pid>_<n>`) is a pack being written: a 12-byte header left blank, then pack
 * records (type and size, the zlib of the body), one append per snapshot. Git cannot read it until it is sealed: read
 * back whole, each record inflated and hashed, the objects listed in an index (git's pack index v2), the header and the
 * SHA-1 trailer written, and both renamed into place as `pack-<sum>.pack` and `.idx`. Sealing stops at the first
 * record that does not inflate to its stated type and size (a tail cut by a crash, bytes changed by someone with
 * write access to the store): what comes before it is kept, the rest is not vouched for — a checkpoint that needs it
 * cannot be restored (said, never restored wrong; the restore hashes every blob it writes back too).
 *
 * A journal is sealed by its own store before git reads the store (a rewind) and when it grows past a bound; one whose
 * process is gone (a crash, an exit) is sealed by the next store that opens the folder. Sealing is idempotent: a crash
 * in the middle leaves the journal, and sealing it again makes the same pack under the same name.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { crc32, inflateSync } from 'node:zlib';
import { processAlive as alive } from '../tools/shared/atomic-write.js';

export const TYPE_CODE = { tree: 2, blob: 3 } as const;
const TYPE_NAME: Record<number, 'tree' | 'blob'> = { 2: 'tree', 3: 'blob' };
const JOURNAL = /^tmp_journal_(\d+)_[0-9a-z]+$/;
/** A pack or index being sealed from a journal (random name): left only by a crash between its writing and its rename. */
const SEALING = /^tmp_journal_(\d+)_[0-9a-z]+\.seal[0-9a-f]{16}\.(?:pack|idx)$/;
/** A record read back larger than this is not trusted (the store never writes one: files over the limit are skipped). */
const MAX_OBJECT_BYTES = 1024 * 1024 * 1024;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/**
 * A file of the store, read only when it is a regular file (the red team): a link planted in the pack folder is not
 * read through, a FIFO never blocks the session. Undefined when it is something else; missing: ENOENT thrown.
 */
function readStoreFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    return fs.fstatSync(fd).isFile() ? fs.readFileSync(fd) : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Opens a journal to append to (made when missing): never through a link, never a FIFO or other non-file. */
export function openJournal(file: string): number {
  const fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  if (fs.fstatSync(fd).isFile()) return fd;
  fs.closeSync(fd);
  throw new Error(`the checkpoint store's journal ${file} is not a regular file`);
}

export interface PackEntry {
  readonly oid: Buffer;
  readonly offset: number;
  readonly crc: number;
}

/** A pack record's header: type and size, 4 then 7 bits a byte, the high bit saying another byte follows. */
export function objectHeader(type: number, size: number): Buffer {
  const bytes: number[] = [];
  let c = (type << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(c | 0x80);
    c = rest % 128;
    rest = Math.floor(rest / 128);
  }
  bytes.push(c);
  return Buffer.from(bytes);
}

/** The header a journal begins with (its count is written when it is sealed). */
export const BLANK_HEADER = Buffer.alloc(12);

/** A journal's name for process `pid` (each store of a process has its own `n`). */
export function journalName(pid: number, n: string): string {
  return `tmp_journal_${pid}_${n}`;
}

/**
 * The records of a journal, each inflated and hashed, up to the first that does not parse: their entries, and where
 * the good part ends.
 */
function parseJournal(bytes: Buffer): { entries: PackEntry[]; end: number } {
  const entries: PackEntry[] = [];
  const seen = new Set<string>();
  let at = 12;
  while (at < bytes.length) {
    const start = at;
    let c = bytes[at++]!;
    const type = (c >> 4) & 7;
    let size = c & 15;
    let scale = 16;
    while (c & 0x80 && at < bytes.length) {
      c = bytes[at++]!;
      size += (c & 0x7f) * scale;
      scale *= 128;
    }
    const name = TYPE_NAME[type];
    if (!name || c & 0x80 || size > MAX_OBJECT_BYTES) break;
    let body: Buffer;
    let used: number;
    try {
      const out = inflateSync(bytes.subarray(at), { info: true, maxOutputLength: Math.max(1, size) }) as unknown as { buffer: Buffer; engine: { bytesWritten: number } };
      body = out.buffer;
      used = out.engine.bytesWritten;
    } catch {
      break;
    }
    if (body.length !== size || used <= 0) break;
    at += used;
    const oid = createHash('sha1').update(`${name} ${size}\0`).update(body).digest();
    const key = oid.toString('hex');
    // A record twice (never written so): the pack's count must equal its index's, so the journal ends before it.
    if (seen.has(key)) {
      at = start;
      break;
    }
    seen.add(key);
    entries.push({ oid, offset: start, crc: crc32(bytes.subarray(start, at)) });
  }
  return { entries, end: entries.length === 0 ? 12 : Math.min(at, bytes.length) };
}

function asWritten(bytes: Buffer, written: readonly PackEntry[]): { entries: PackEntry[]; end: number } | undefined {
  if (written.length === 0 || written[0]!.offset !== 12) return undefined;
  for (let i = 0; i < written.length; i++) {
    const e = written[i]!;
    const next = i + 1 < written.length ? written[i + 1]!.offset : bytes.length;
    if (next <= e.offset || next > bytes.length || crc32(bytes.subarray(e.offset, next)) !== e.crc) return undefined;
  }
  return { entries: [...written], end: bytes.length };
}

/**
 * Seals the journal `file` into a pack of `packDir`: the index of the new pack (none when the journal held no whole
 * object), and whether the journal was as written (`written`: its records as its store appended them). The journal is
 * removed once the pack and its index are in place.
 */
export function sealJournal(file: string, packDir: string, written?: readonly PackEntry[]): { index?: Buffer; intact: boolean } {
  let bytes: Buffer | undefined;
  try {
    bytes = readStoreFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { intact: true };
    throw error;
  }
  // A link or a FIFO where a journal goes was never written by a store: left alone, vouching for nothing.
  if (bytes === undefined) return { intact: false };
  // The store's own journal: its records are known (offsets and CRCs as written), checked by CRC, not inflated again;
  // a journal that differs from them in any way (cut, changed) is read as a stranger's, and said not intact.
  const known = written && written.length > 0 ? asWritten(bytes, written) : undefined;
  const { entries, end } = known ?? parseJournal(bytes);
  const intact = known !== undefined || (written === undefined || written.length === 0 ? end === bytes.length : false);
  if (entries.length === 0) {
    fs.rmSync(file, { force: true });
    return { intact };
  }
  const pack = Buffer.allocUnsafe(end + 20);
  bytes.copy(pack, 0, 0, end);
  pack.write('PACK', 0, 'latin1');
  pack.writeUInt32BE(2, 4);
  pack.writeUInt32BE(entries.length, 8);
  // The trailer is the SHA-1 of everything before it.
  const sum = createHash('sha1').update(pack.subarray(0, end)).digest();
  sum.copy(pack, end);
  const index = indexOf(entries, sum);
  const name = `${packDir}/pack-${sum.toString('hex')}`;
  // A name nobody could plant a link at beforehand, made exclusively (O_EXCL: a link there fails, never followed).
  const temp = `${file}.seal${randomBytes(8).toString('hex')}`;
  fs.writeFileSync(`${temp}.pack`, pack, { mode: 0o444, flag: 'wx' });
  fs.writeFileSync(`${temp}.idx`, index, { mode: 0o444, flag: 'wx' });
  fs.renameSync(`${temp}.pack`, `${name}.pack`);
  fs.renameSync(`${temp}.idx`, `${name}.idx`);
  fs.rmSync(file, { force: true });
  return { index, intact };
}

/**
 * Seals the journals in `packDir` no live process of another store writes: this process's (its stores write only in
 * its own turns, never while this runs) and those of processes gone.
 */
export function sealJournals(packDir: string): Buffer[] {
  let names: string[];
  try {
    names = fs.readdirSync(packDir);
  } catch {
    return [];
  }
  const out: Buffer[] = [];
  for (const name of names) {
    const left = SEALING.exec(name);
    // Sealing runs start to end within one call: one of this process's, or of a process gone, was cut by a crash.
    if (left && (Number(left[1]) === process.pid || !alive(Number(left[1])))) fs.rmSync(`${packDir}/${name}`, { force: true });
    const m = JOURNAL.exec(name);
    if (!m || (Number(m[1]) !== process.pid && alive(Number(m[1])))) continue;
    const { index } = sealJournal(`${packDir}/${name}`, packDir);
    if (index) out.push(index);
  }
  return out;
}

/** Git's pack index v2: fan-out, sorted ids, CRCs, offsets, the pack's checksum, its own. */
export function indexOf(entries: readonly PackEntry[], packSum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.oid, b.oid));
  const n = sorted.length;
  const out = Buffer.alloc(8 + 256 * 4 + n * 28 + 40);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  let at = 8;
  for (let b = 0, k = 0; b < 256; b++) {
    while (k < n && sorted[k]!.oid[0]! <= b) k++;
    out.writeUInt32BE(k, at);
    at += 4;
  }
  for (const e of sorted) at += e.oid.copy(out, at);
  for (const e of sorted) at = out.writeUInt32BE(e.crc >>> 0, at);
  for (const e of sorted) at = out.writeUInt32BE(e.offset, at);
  at += packSum.copy(out, at);
  createHash('sha1').update(out.subarray(0, at)).digest().copy(out, at);
  return out;
}

/** The pack indexes in `dir` that parse as version 2 (their size agreeing with their count), their packs present. */
export function readIndexes(dir: string): Buffer[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: Buffer[] = [];
  for (const name of names) {
    // An index without its pack (removed, or planted) vouches for nothing.
    if (!/^pack-[0-9a-f]{40}\.idx$/.test(name) || !fs.existsSync(`${dir}/${name.slice(0, -4)}.pack`)) continue;
    try {
      const idx = readStoreFile(`${dir}/${name}`);
      if (idx === undefined || idx.length < 8 + 1024 + 40 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) continue;
      const n = idx.readUInt32BE(8 + 255 * 4);
      if (idx.length < 8 + 1024 + n * 28 + 40) continue;
      out.push(idx);
    } catch {
      // unreadable: not used
    }
  }
  return out;
}

/** Whether the index lists `oid` (binary search within its fan-out bucket). */
export function inIndex(idx: Buffer, oid: Buffer): boolean {
  const first = oid[0]!;
  let lo = first === 0 ? 0 : idx.readUInt32BE(8 + (first - 1) * 4);
  let hi = idx.readUInt32BE(8 + first * 4);
  const base = 8 + 1024;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = Buffer.compare(idx.subarray(base + mid * 20, base + mid * 20 + 20), oid);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return false;
}
