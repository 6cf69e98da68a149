/**
 * Binary detection in two stages: an extension block-list (cheap, no I/O) and a look at the first 8 KiB (a NUL byte,
 * or more than 10 % control bytes other than tab, newline, carriage return, form feed and escape).
 */
import path from 'node:path';

export const BINARY_EXTENSIONS: ReadonlySet<string> = new Set([
  // images (Read handles png/jpg/jpeg/gif/webp itself before this list is consulted)
  'png', 'jpg', 'jpeg', 'gif', 'bmp', 'ico', 'webp', 'tiff', 'tif', 'heic', 'heif', 'avif',
  // video and audio
  'mp4', 'mov', 'avi', 'mkv', 'webm', 'wmv', 'flv', 'm4v', 'mpeg', 'mpg',
  'mp3', 'wav', 'ogg', 'flac', 'aac', 'm4a', 'wma', 'aiff', 'opus',
  // archives
  'zip', 'tar', 'gz', 'bz2', '7z', 'rar', 'xz', 'z', 'tgz', 'iso', 'zst', 'lz4',
  // executables and objects
  'exe', 'dll', 'so', 'dylib', 'bin', 'o', 'a', 'obj', 'lib', 'app', 'msi', 'deb', 'rpm',
  // documents (PDF is read by its own branch)
  'pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'odt', 'ods', 'odp',
  // fonts
  'ttf', 'otf', 'woff', 'woff2', 'eot',
  // bytecode and VM images
  'pyc', 'pyo', 'class', 'jar', 'war', 'ear', 'node', 'wasm', 'rlib',
  // databases
  'sqlite', 'sqlite3', 'db', 'mdb', 'idx',
  // design and 3D
  'psd', 'ai', 'eps', 'sketch', 'fig', 'xd', 'blend', '3ds', 'max',
  // flash, lock files, raw data
  'swf', 'fla', 'lockb', 'dat', 'data',
]);

/** The lower-case extension without its dot (`''` when there is none). */
export function fileExtension(filePath: string): string {
  return path.extname(filePath).slice(1).toLowerCase();
}

export function hasBinaryExtension(filePath: string): boolean {
  return BINARY_EXTENSIONS.has(fileExtension(filePath));
}

export const BINARY_CHECK_BYTES = 8192;

export function isBinaryContent(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, BINARY_CHECK_BYTES);
  if (n === 0) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return true;
    // \t \n \r, form feed and ESC (ANSI colours in logs) are text.
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12 && b !== 27) control++;
  }
  return control / n > 0.1;
}

/** The same heuristic on decoded text (UTF-16 files, whose raw bytes are full of NULs). */
export function isBinaryText(text: string): boolean {
  const n = Math.min(text.length, BINARY_CHECK_BYTES);
  if (n === 0) return false;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0) return true;
    if (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 27) control++;
  }
  return control / n > 0.1;
}

export function binaryExtensionMessage(filePath: string): string {
  return `This tool cannot read binary files. The file appears to be a binary .${fileExtension(filePath)} file. Please use appropriate tools for binary file analysis.`;
}

export function binaryContentMessage(filePath: string): string {
  return `This tool cannot read binary files. ${filePath} appears to be binary (its first 8 KiB contain a NUL byte or more than 10% control characters). Please use appropriate tools for binary file analysis.`;
}
