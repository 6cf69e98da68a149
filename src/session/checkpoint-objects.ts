/**
 * The objects of a checkpoint store (checkpoint-scan.ts writes them), in git's formats. Making a file is what an
 * object costs (about a millisecond of system time each on a loaded machine, where appending to an open one costs
 * ~20 µs): a turn's few objects (a changed file's blob, the trees above it) are loose objects (zlib of
 * `type size\0body`, written to a temporary name and renamed), but past `PACK_AFTER` new objects in one snapshot — a
 * first checkpoint, a checkout, a generated folder — the rest go into one pack (git's pack v2 and its index v2, both
 * renamed into `objects/pack/` when the snapshot ends): two files instead of thousands. A crash leaves only temporary
 * files; an object is under its name only when it is whole.
 *
 * Whether the store holds an object (a resumed session takes a logged blob only when it does): a loose file, or an
 * entry of a pack index read back (magic, version and size checked, its pack present; one that does not pass is not
 * used — the file is then read and hashed again).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

/** New objects of one snapshot written loose before the rest go into a pack. */
export const PACK_AFTER = 64;
/** A pack is closed past this size (its index keeps 31-bit offsets) and another begun. */
const PACK_MAX_BYTES = 1024 * 1024 * 1024;
const TYPE_CODE = { tree: 2, blob: 3 } as const;
let packs = 0;

interface OpenPack {
  readonly temp: string;
  readonly fd: number;
  readonly entries: { oid: Buffer; offset: number; crc: number }[];
  size: number;
}

export class LooseObjects {
  /** Trees known written (blobs are many, and each is asked for once per change). */
  readonly #written = new Set<string>();
  readonly #fanouts = new Set<string>();
  /** Objects in the pack being written (its index, once written, answers for them). */
  readonly #packed = new Set<string>();
  /** The pack indexes found in the store (read on first need). */
  #indexes: Buffer[] | undefined;
  #fresh = 0;
  #pack: OpenPack | undefined;

  constructor(private readonly gitDir: string) {}

  /** Whether the store holds `oid`. */
  has(oid: string): boolean {
    if (this.#written.has(oid) || this.#packed.has(oid)) return true;
    if (fs.existsSync(`${this.gitDir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`)) return true;
    const key = Buffer.from(oid, 'hex');
    return (this.#indexes ??= readIndexes(`${this.gitDir}/objects/pack`)).some((idx) => inIndex(idx, key));
  }

  /** The object's id, written once. */
  write(type: 'blob' | 'tree', body: Buffer): string {
    const head = Buffer.from(`${type} ${body.length}\0`);
    const oid = createHash('sha1').update(head).update(body).digest('hex');
    if (this.#written.has(oid) || this.#packed.has(oid)) return oid;
    if (!this.has(oid)) {
      const dir = `${this.gitDir}/objects/${oid.slice(0, 2)}`;
      if (++this.#fresh > PACK_AFTER) this.#toPack(type, oid, body);
      else {
        if (!this.#fanouts.has(dir)) {
          fs.mkdirSync(dir, { recursive: true });
          this.#fanouts.add(dir);
        }
        const temp = `${dir}/tmp_${process.pid}_${oid.slice(2, 10)}`;
        fs.writeFileSync(temp, deflateSync(Buffer.concat([head, body]), { level: 1 }), { mode: 0o444 });
        fs.renameSync(temp, `${dir}/${oid.slice(2)}`);
      }
    }
    if (type === 'tree') this.#written.add(oid);
    return oid;
  }

  /** The snapshot is over: its pack, if any, is closed and put in place (before any record names its objects). */
  end(): void {
    this.#fresh = 0;
    this.#close();
  }

  #toPack(type: 'blob' | 'tree', oid: string, body: Buffer): void {
    if (this.#pack && this.#pack.size > PACK_MAX_BYTES) this.#close();
    const pack = (this.#pack ??= this.#open());
    const record = Buffer.concat([objectHeader(TYPE_CODE[type], body.length), deflateSync(body, { level: 1 })]);
    fs.writeSync(pack.fd, record);
    pack.entries.push({ oid: Buffer.from(oid, 'hex'), offset: pack.size, crc: crc32(record) });
    pack.size += record.length;
    this.#packed.add(oid);
  }

  #open(): OpenPack {
    const dir = `${this.gitDir}/objects/pack`;
    fs.mkdirSync(dir, { recursive: true });
    const temp = `${dir}/tmp_pack_${process.pid}_${Date.now()}_${packs++}`;
    const fd = fs.openSync(temp, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o444);
    // The header (its object count) is written last, in its place.
    fs.writeSync(fd, Buffer.alloc(12));
    return { temp, fd, entries: [], size: 12 };
  }

  #close(): void {
    const pack = this.#pack;
    if (!pack) return;
    this.#pack = undefined;
    try {
      const header = Buffer.alloc(12);
      header.write('PACK', 0, 'latin1');
      header.writeUInt32BE(2, 4);
      header.writeUInt32BE(pack.entries.length, 8);
      fs.writeSync(pack.fd, header, 0, 12, 0);
      // The trailer is the SHA-1 of everything before it.
      const sum = sha1OfFile(pack.fd, pack.size);
      fs.writeSync(pack.fd, sum, 0, 20, pack.size);
      fs.closeSync(pack.fd);
      const name = `${this.gitDir}/objects/pack/pack-${sum.toString('hex')}`;
      const index = indexOf(pack.entries, sum);
      fs.writeFileSync(`${pack.temp}.idx`, index, { mode: 0o444 });
      fs.renameSync(pack.temp, `${name}.pack`);
      fs.renameSync(`${pack.temp}.idx`, `${name}.idx`);
      if (this.#indexes) this.#indexes.push(index);
      else this.#indexes = readIndexes(`${this.gitDir}/objects/pack`);
      for (const e of pack.entries) this.#packed.delete(e.oid.toString('hex'));
    } catch (error) {
      try {
        fs.closeSync(pack.fd);
      } catch {
        // closed already
      }
      fs.rmSync(pack.temp, { force: true });
      fs.rmSync(`${pack.temp}.idx`, { force: true });
      for (const e of pack.entries) this.#packed.delete(e.oid.toString('hex'));
      throw error;
    }
  }
}

/** A pack record's header: type and size, 4 then 7 bits a byte, the high bit saying another byte follows. */
function objectHeader(type: number, size: number): Buffer {
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

/** The SHA-1 of the first `size` bytes of the file open as `fd` (read back: its header was written last). */
function sha1OfFile(fd: number, size: number): Buffer {
  const hash = createHash('sha1');
  const chunk = Buffer.allocUnsafe(1024 * 1024);
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, size - at), at);
    if (n <= 0) throw new Error('pack shorter than written');
    hash.update(chunk.subarray(0, n));
    at += n;
  }
  return hash.digest();
}

/** Git's pack index v2: fan-out, sorted ids, CRCs, offsets, the pack's checksum, its own. */
function indexOf(entries: readonly { oid: Buffer; offset: number; crc: number }[], packSum: Buffer): Buffer {
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
function readIndexes(dir: string): Buffer[] {
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
      const idx = fs.readFileSync(`${dir}/${name}`);
      if (idx.length < 8 + 1024 + 40 || idx.readUInt32BE(0) !== 0xff744f63 || idx.readUInt32BE(4) !== 2) continue;
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
function inIndex(idx: Buffer, oid: Buffer): boolean {
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
