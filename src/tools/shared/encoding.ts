/**
 * Text encodings and line endings, detected on read and kept on write: UTF-8 with or without a BOM, UTF-16LE with a
 * BOM, and — for bytes that are not valid UTF-8 — Latin-1, which maps every byte to one character and back, so an edit
 * never corrupts bytes the tool could not interpret.
 */
import { isUtf8 } from 'node:buffer';

export type TextEncoding = 'utf8' | 'utf8-bom' | 'utf16le' | 'latin1';
/** `none`: no line break at all; `mixed`: both CRLF and bare LF occur. */
export type LineEndings = 'LF' | 'CRLF' | 'mixed' | 'none';

export interface DecodedText {
  /** The text without its BOM; line endings untouched. */
  readonly text: string;
  readonly encoding: TextEncoding;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const UTF16LE_BOM = Buffer.from([0xff, 0xfe]);

export function hasUtf16LeBom(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe;
}

export function hasUtf16BeBom(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff;
}

export function hasUtf8Bom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

export function decodeText(bytes: Buffer): DecodedText {
  if (hasUtf16LeBom(bytes)) return { text: bytes.toString('utf16le', 2), encoding: 'utf16le' };
  if (hasUtf8Bom(bytes)) {
    const body = bytes.subarray(3);
    return isUtf8(body) ? { text: body.toString('utf8'), encoding: 'utf8-bom' } : { text: bytes.toString('latin1'), encoding: 'latin1' };
  }
  return isUtf8(bytes) ? { text: bytes.toString('utf8'), encoding: 'utf8' } : { text: bytes.toString('latin1'), encoding: 'latin1' };
}

/** Characters an encoding cannot hold (only Latin-1 has a limit), so a write can refuse instead of corrupting. */
export function canEncode(text: string, encoding: TextEncoding): boolean {
  if (encoding !== 'latin1') return true;
  return !/[\u0100-\uffff]/.test(text);
}

export function encodeText(text: string, encoding: TextEncoding): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8-bom':
      return Buffer.concat([UTF8_BOM, Buffer.from(text, 'utf8')]);
    case 'utf16le':
      return Buffer.concat([UTF16LE_BOM, Buffer.from(text, 'utf16le')]);
    case 'latin1':
      return Buffer.from(text, 'latin1');
  }
}

export function describeEncoding(encoding: TextEncoding): string {
  switch (encoding) {
    case 'utf8':
      return 'UTF-8';
    case 'utf8-bom':
      return 'UTF-8 with BOM';
    case 'utf16le':
      return 'UTF-16LE with BOM';
    case 'latin1':
      return 'Latin-1 (the bytes are not valid UTF-8)';
  }
}

export interface LineEndingCounts {
  readonly crlf: number;
  readonly lf: number;
}

export function countLineEndings(text: string): LineEndingCounts {
  let crlf = 0;
  let lf = 0;
  let i = text.indexOf('\n');
  while (i !== -1) {
    if (i > 0 && text.charCodeAt(i - 1) === 13) crlf++;
    else lf++;
    i = text.indexOf('\n', i + 1);
  }
  return { crlf, lf };
}

export function lineEndingsOf(counts: LineEndingCounts): LineEndings {
  if (counts.crlf === 0 && counts.lf === 0) return 'none';
  if (counts.crlf === 0) return 'LF';
  if (counts.lf === 0) return 'CRLF';
  return 'mixed';
}

export function detectLineEndings(text: string): LineEndings {
  // Most files have no \r at all: two native searches instead of a walk over every line.
  if (!text.includes('\r')) return text.includes('\n') ? 'LF' : 'none';
  return lineEndingsOf(countLineEndings(text));
}

/** Text with only `\n` converted to the file's convention (CRLF files get `\r\n`; others stay as they are). */
export function applyLineEndings(lfText: string, lineEndings: LineEndings): string {
  return lineEndings === 'CRLF' ? lfText.replace(/\r?\n/g, '\r\n') : lfText;
}

/** A note for the model when a file's line endings are not plain LF (Read shows lines without their `\r`). */
export function lineEndingNote(lineEndings: LineEndings, crlfLines?: number): string | undefined {
  if (lineEndings === 'CRLF') {
    return 'This file uses CRLF (\\r\\n) line endings. Lines are shown without the \\r; Edit and Write keep CRLF, so do not add \\r yourself.';
  }
  if (lineEndings === 'mixed') {
    const count = crlfLines === undefined ? 'some lines' : `${crlfLines} line${crlfLines === 1 ? '' : 's'}`;
    return `This file mixes line endings: ${count} end in CRLF (\\r\\n), the others in LF. Lines are shown without the \\r.`;
  }
  return undefined;
}
