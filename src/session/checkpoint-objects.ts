/**
 * The objects of a checkpoint store (checkpoint-scan.ts writes them), in git's formats. Making a file is what an
 * object used to cost (about a millisecond of system time each on a loaded machine, where appending to an existing one
 * costs ~20 µs): a snapshot's new objects (a changed file's blob, the trees above it) are appended, in one write at
 * its end, to the store's journal (checkpoint-pack.ts: a pack being written), which is sealed into a pack and its
 * index before git reads the store, and past `SEAL_AFTER` objects or `SEAL_BYTES` bytes. The snapshot's record is
 * appended only after its objects: a process that dies after a checkpoint returned leaves its objects in the journal,
 * which the next store opening the folder seals (a power loss can lose what the kernel had not written yet, as for
 * every file of the store: nothing is fsynced).
 *
 * Whether the store holds an object (a resumed session takes a logged blob only when it does): in this store's journal,
 * an entry of a pack index read back (magic, version and size checked, its pack present; one that does not pass is
 * not used — the file is then read and hashed again), or a loose object left by an older store.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';
import { BLANK_HEADER, inIndex, openJournal, type PackEntry, journalName, objectHeader, readIndexes, sealJournal, sealJournals, TYPE_CODE } from './checkpoint-pack.js';

/** Objects appended to a journal before it is sealed into a pack (what this store keeps in memory meanwhile). */
export const SEAL_AFTER = 1024;
/** A journal is sealed past this size (an index's offsets are 31-bit; a rewind reads the journal whole). */
const SEAL_BYTES = 64 * 1024 * 1024;
/** New objects held in memory before they are appended (a first snapshot of big files goes out in parts). */
const FLUSH_BYTES = 8 * 1024 * 1024;
let journals = 0;

export class CheckpointObjects {
  readonly #packDir: string;
  readonly #journal: string;
  /** Trees known written (blobs are many, and each is asked for once per change). */
  readonly #written = new Set<string>();
  /** Objects appended to the journal since it was last sealed, and those waiting for the snapshot's end. */
  readonly #journaled = new Set<string>();
  /** The journal's records as written (where each begins, its CRC), while they follow one another from its start. */
  #entries: PackEntry[] = [];
  #pending: { oid: string; record: Buffer }[] = [];
  #pendingBytes = 0;
  #journalBytes = 0;
  /** The pack indexes found in the store (read on first need). */
  #indexes: Buffer[] | undefined;
  /** Whether an older store left loose objects (looked at once). */
  readonly #loose: boolean;

  constructor(private readonly gitDir: string) {
    this.#packDir = `${gitDir}/objects/pack`;
    fs.mkdirSync(this.#packDir, { recursive: true });
    this.#journal = `${this.#packDir}/${journalName(process.pid, `${Date.now().toString(36)}${(journals++).toString(36)}`)}`;
    this.#loose = fs.readdirSync(`${gitDir}/objects`).some((n) => /^[0-9a-f]{2}$/.test(n));
  }

  /** Whether the store holds `oid`. */
  has(oid: string): boolean {
    if (this.#written.has(oid) || this.#journaled.has(oid)) return true;
    if (this.#loose && fs.existsSync(`${this.gitDir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`)) return true;
    const key = Buffer.from(oid, 'hex');
    return (this.#indexes ??= readIndexes(this.#packDir)).some((idx) => inIndex(idx, key));
  }

  /** The object's id, written once. */
  write(type: 'blob' | 'tree', body: Buffer): string {
    const oid = createHash('sha1').update(`${type} ${body.length}\0`).update(body).digest('hex');
    if (this.#written.has(oid) || this.#journaled.has(oid)) return oid;
    if (!this.has(oid)) {
      const record = Buffer.concat([objectHeader(TYPE_CODE[type], body.length), deflateSync(body, { level: 1 })]);
      this.#pending.push({ oid, record });
      this.#pendingBytes += record.length;
      this.#journaled.add(oid);
      if (this.#pendingBytes > FLUSH_BYTES) this.#flush();
    }
    if (type === 'tree') this.#written.add(oid);
    return oid;
  }

  /** The snapshot is over: its objects are appended (before any record names them); a journal grown big is sealed. */
  end(): void {
    this.#flush();
    if (this.#journaled.size > SEAL_AFTER || this.#journalBytes > SEAL_BYTES) this.#sealIntact();
  }

  /**
   * Every journal this process (or a process gone) wrote in the store is made a pack git reads. False when this
   * store's journal was not as it wrote it (cut or changed behind its back): what it remembers having stored is then
   * not all there, and whoever holds this object must drop it (checkpoints.ts starts the scan over).
   */
  seal(): boolean {
    this.#flush();
    const { intact } = sealJournal(this.#journal, this.#packDir, this.#entries);
    sealJournals(this.#packDir);
    // Another store of this process may have sealed this one's journal before: the indexes are read again.
    const indexes = (this.#indexes = readIndexes(this.#packDir));
    // And sealed it as a stranger's, up to a record changed behind its back (the red team): what this store appended
    // since its last seal must all be in a pack now, else it is not intact (its memory of what it holds is dropped).
    const kept = [...this.#journaled].every((oid) => {
      const key = Buffer.from(oid, 'hex');
      return indexes.some((idx) => inIndex(idx, key));
    });
    this.#journaled.clear();
    this.#entries = [];
    this.#journalBytes = 0;
    return intact && kept;
  }

  #sealIntact(): void {
    if (!this.seal()) throw new Error('the checkpoint store was changed behind its back (its journal is not as written): the checkpoint starts over');
  }

  /**
   * What waits is appended to the journal in one write (its blank header first when the journal is new). A failure
   * throws out of the snapshot, whose scan is then dropped with this object and its sets (checkpoints.ts).
   */
  #flush(): void {
    if (this.#pending.length === 0) return;
    const records = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    const fd = openJournal(this.#journal);
    try {
      const size = fs.fstatSync(fd).size;
      // Sealed by another store of this process since (or begun anew): the known records start over.
      if (size === 0 || size !== this.#journalBytes) this.#entries = [];
      let at = size === 0 ? 12 : size;
      for (const r of records) {
        this.#entries.push({ oid: Buffer.from(r.oid, 'hex'), offset: at, crc: crc32(r.record) });
        at += r.record.length;
      }
      const bytes = Buffer.concat(size === 0 ? [BLANK_HEADER, ...records.map((r) => r.record)] : records.map((r) => r.record));
      for (let done = 0; done < bytes.length; ) done += fs.writeSync(fd, bytes, done);
      this.#journalBytes = at;
    } finally {
      fs.closeSync(fd);
    }
    if (this.#journalBytes > SEAL_BYTES) this.#sealIntact();
  }
}
