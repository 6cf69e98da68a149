/**
 * The search-and-replace engine of result redaction (redaction.ts decides what is a secret; this finds them fast).
 *
 * - Secrets of 8+ characters: one left-to-right Wu–Manber pass for all of them at once (hashed 3-character blocks say
 *   how far the window may jump; only where a block ends a secret's prefix are candidates compared). With secrets of
 *   16+ characters the window moves ~14 characters per step whatever their number.
 * - Shorter secrets (4–7 characters, few): one native `indexOf` loop each — they would cap every jump of the pass
 *   above at their length. Those under 6 characters count only as a whole word (not inside a longer run of letters,
 *   digits and `_`): a 4-character password must be hidden where it is printed, not cut out of every word it occurs in.
 * - The output: matches do not overlap; at one position the longest wins. A large text is assembled in a Buffer
 *   (one-byte or UTF-16, exactly as the string is) and decoded once — for 10 MB that measured ~4× cheaper in CPU than
 *   reading a rope of slices, which V8 flattens slowly.
 */

export interface SecretPattern {
  readonly value: string;
  readonly marker: string;
  /** Match only where the value is not inside a longer word. */
  readonly wholeWord: boolean;
}

/** Shorter secrets are searched one by one (`indexOf`), longer ones all at once. */
const SHORT_BELOW = 8;
/** Below this, concatenation is cheaper than a Buffer round trip. */
const BUFFER_FROM = 64 * 1024;
// eslint-disable-next-line no-control-regex
const WIDE = /[^\u0000-\u00ff]/;

export class SecretScanner {
  readonly #long: MultiStringScanner | undefined;
  readonly #markers = new Map<string, string>();
  readonly #short: readonly SecretPattern[];
  readonly #wideMarkers: boolean;

  constructor(patterns: readonly SecretPattern[]) {
    const long: string[] = [];
    const short: SecretPattern[] = [];
    for (const p of patterns) {
      if (p.value.length >= SHORT_BELOW) {
        long.push(p.value);
        this.#markers.set(p.value, p.marker);
      } else short.push(p);
    }
    this.#long = long.length > 0 ? new MultiStringScanner(long) : undefined;
    this.#short = short;
    this.#wideMarkers = patterns.some((p) => WIDE.test(p.marker));
  }

  /** `text` with every secret replaced by its marker; the same string when none occurs. */
  replace(text: string): string {
    const starts: number[] = [];
    const ends: number[] = [];
    const markers: string[] = [];
    this.#long?.scan(text, (at, secret) => {
      starts.push(at);
      ends.push(at + secret.length);
      markers.push(this.#markers.get(secret)!);
    });
    let sorted = true;
    for (const p of this.#short) {
      for (let at = text.indexOf(p.value); at !== -1; at = text.indexOf(p.value, at + 1)) {
        if (p.wholeWord && !isWholeWord(text, at, at + p.value.length)) continue;
        starts.push(at);
        ends.push(at + p.value.length);
        markers.push(p.marker);
        sorted = false;
      }
    }
    if (starts.length === 0) return text;
    let order = starts.map((_, i) => i);
    if (!sorted) order = order.sort((a, b) => starts[a]! - starts[b]! || ends[b]! - ends[a]!);
    // Non-overlapping, left to right, the longest at a position (first in `order`).
    const keep: number[] = [];
    let pos = 0;
    for (const i of order) {
      if (starts[i]! < pos) continue;
      keep.push(i);
      pos = ends[i]!;
    }
    return text.length < BUFFER_FROM ? concatenate(text, keep, starts, ends, markers) : assemble(text, keep, starts, ends, markers, this.#wideMarkers);
  }
}

function isWordChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}

function isWholeWord(text: string, start: number, end: number): boolean {
  if (start > 0 && isWordChar(text.charCodeAt(start)) && isWordChar(text.charCodeAt(start - 1))) return false;
  return !(end < text.length && isWordChar(text.charCodeAt(end - 1)) && isWordChar(text.charCodeAt(end)));
}

function concatenate(text: string, keep: readonly number[], starts: readonly number[], ends: readonly number[], markers: readonly string[]): string {
  let out = '';
  let pos = 0;
  for (const i of keep) {
    out += text.slice(pos, starts[i]) + markers[i];
    pos = ends[i]!;
  }
  return out + text.slice(pos);
}

function assemble(
  text: string,
  keep: readonly number[],
  starts: readonly number[],
  ends: readonly number[],
  markers: readonly string[],
  wideMarkers: boolean,
): string {
  // One byte per character when every character fits (V8 answers this test at once for a one-byte string).
  const wide = wideMarkers || WIDE.test(text);
  const encoding: BufferEncoding = wide ? 'utf16le' : 'latin1';
  const width = wide ? 2 : 1;
  let length = text.length;
  for (const i of keep) length += markers[i]!.length - (ends[i]! - starts[i]!);
  const buffer = scratch(length * width);
  let offset = 0;
  let pos = 0;
  const put = (piece: string) => {
    offset += buffer.write(piece, offset, piece.length * width, encoding);
  };
  for (const i of keep) {
    put(text.slice(pos, starts[i]));
    put(markers[i]!);
    pos = ends[i]!;
  }
  put(text.slice(pos));
  return buffer.toString(encoding, 0, offset);
}

/**
 * A reused Buffer for assembling: a fresh 10–20 MB allocation per call is mostly page faults (measured: half the CPU
 * time under memory pressure). Kept while redaction is busy, dropped a few seconds after the last use.
 */
let scratchBuffer: Buffer | undefined;
let scratchTimer: NodeJS.Timeout | undefined;
const SCRATCH_KEEP_MS = 5_000;
const SCRATCH_MAX = 64 * 1024 * 1024;

function scratch(bytes: number): Buffer {
  if (bytes > SCRATCH_MAX) return Buffer.allocUnsafe(bytes);
  if (scratchBuffer === undefined || scratchBuffer.length < bytes) scratchBuffer = Buffer.allocUnsafe(Math.max(bytes, 1024 * 1024));
  if (scratchTimer === undefined) {
    scratchTimer = setTimeout(() => {
      scratchBuffer = undefined;
      scratchTimer = undefined;
    }, SCRATCH_KEEP_MS);
    scratchTimer.unref();
  } else scratchTimer.refresh();
  return scratchBuffer;
}

/** Wu–Manber over patterns of 3+ characters (here: 8+). */
class MultiStringScanner {
  static readonly #B = 3;
  static readonly #BITS = 15;
  readonly #m: number;
  readonly #shift: Uint8Array;
  readonly #candidates = new Map<number, string[]>();

  constructor(patterns: readonly string[]) {
    const B = MultiStringScanner.#B;
    this.#m = Math.min(16, ...patterns.map((p) => p.length));
    const m = this.#m;
    this.#shift = new Uint8Array(1 << MultiStringScanner.#BITS).fill(m - B + 1);
    for (const p of [...patterns].sort((a, b) => b.length - a.length)) {
      for (let j = 0; j <= m - B; j++) {
        const h = hashOfPattern(p, j);
        const shift = m - B - j;
        if (shift < this.#shift[h]!) this.#shift[h] = shift;
        if (shift === 0) {
          const list = this.#candidates.get(h);
          if (list) list.push(p);
          else this.#candidates.set(h, [p]);
        }
      }
    }
  }

  scan(text: string, onMatch: (at: number, pattern: string) => void): void {
    const m = this.#m;
    const shiftTable = this.#shift;
    const n = text.length;
    let end = m - 1; // index of the last character of the current window
    while (end < n) {
      const h = hash3(text, end - 2);
      const shift = shiftTable[h]!;
      if (shift > 0) {
        end += shift;
        continue;
      }
      const start = end - m + 1;
      let matched: string | undefined;
      for (const p of this.#candidates.get(h)!) {
        if (text.startsWith(p, start)) {
          matched = p;
          break;
        }
      }
      if (matched === undefined) {
        end += 1;
        continue;
      }
      onMatch(start, matched);
      end = start + matched.length + m - 1;
    }
  }
}

/** hash3 for the patterns: a separate function, so the scan's call site sees only the texts and stays fast. */
function hashOfPattern(s: string, i: number): number {
  return ((s.charCodeAt(i) << 10) ^ (s.charCodeAt(i + 1) << 5) ^ s.charCodeAt(i + 2)) & 0x7fff;
}

function hash3(s: string, i: number): number {
  return ((s.charCodeAt(i) << 10) ^ (s.charCodeAt(i + 1) << 5) ^ s.charCodeAt(i + 2)) & 0x7fff;
}
