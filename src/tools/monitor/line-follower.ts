/**
 * Reads a growing output file line by line: each call returns the lines completed since the last one (a line cut in
 * the middle of a UTF-8 character or without its newline waits for the rest, unless it is the final read). A `\r`
 * progress line keeps only what was written after its last carriage return.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Read at most this much per call: a command that floods its output is followed in steps, not swallowed at once. */
const CHUNK_BYTES = 1024 * 1024;

export class LineFollower {
  #offset = 0;
  #partial = '';
  readonly #decoder = new StringDecoder('utf8');

  constructor(readonly file: string) {}

  /** Bytes read so far. */
  get offset(): number {
    return this.#offset;
  }

  read(final = false): string[] {
    let text = '';
    let fd: number | undefined;
    try {
      fd = openSync(this.file, 'r');
      const buf = Buffer.allocUnsafe(CHUNK_BYTES);
      const n = readSync(fd, buf, 0, CHUNK_BYTES, this.#offset);
      this.#offset += n;
      text = this.#decoder.write(buf.subarray(0, n));
    } catch {
      // Not there yet, or already removed: nothing new.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    if (final) text += this.#decoder.end();
    const all = this.#partial + text;
    const lines = all.split('\n');
    this.#partial = final ? '' : lines.pop()!;
    if (final && lines.at(-1) === '') lines.pop();
    return lines.map((line) => {
      const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
      const cr = trimmed.lastIndexOf('\r');
      return cr >= 0 ? trimmed.slice(cr + 1) : trimmed;
    });
  }
}
