/**
 * The objects of a checkpoint store (checkpoint-scan.ts writes them): loose objects in git's format (zlib of
 * `type size\0body`), named by their SHA-1, each written to a temporary name and renamed, so a crash never leaves a
 * half-written object under its name. Making a file is the fixed cost of a small project's turn (a changed file's blob
 * and the trees above it, about a millisecond each on a loaded machine, where appending to one costs ~20 µs).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { deflateSync } from 'node:zlib';

export class LooseObjects {
  /** Trees known written (blobs are many, and each is asked for once per change). */
  readonly #written = new Set<string>();
  readonly #fanouts = new Set<string>();

  constructor(private readonly gitDir: string) {}

  /** Whether the store holds `oid`. */
  has(oid: string): boolean {
    return this.#written.has(oid) || fs.existsSync(`${this.gitDir}/objects/${oid.slice(0, 2)}/${oid.slice(2)}`);
  }

  /** The object's id, written once. */
  write(type: 'blob' | 'tree', body: Buffer): string {
    const object = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
    const oid = createHash('sha1').update(object).digest('hex');
    if (this.#written.has(oid)) return oid;
    const dir = `${this.gitDir}/objects/${oid.slice(0, 2)}`;
    const file = `${dir}/${oid.slice(2)}`;
    if (!fs.existsSync(file)) {
      if (!this.#fanouts.has(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        this.#fanouts.add(dir);
      }
      const temp = `${dir}/tmp_${process.pid}_${oid.slice(2, 10)}`;
      fs.writeFileSync(temp, deflateSync(object, { level: 1 }), { mode: 0o444 });
      fs.renameSync(temp, file);
    }
    if (type === 'tree') this.#written.add(oid);
    return oid;
  }
}
