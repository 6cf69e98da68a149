import type { ToolUseContext } from '../../tool/tool-use-context.js';
/**
 * Loading a file that is about to be changed, and writing it back: whole, decoded with its encoding and line endings
 * noted, and written atomically in the same encoding.
 */
import fs from 'node:fs';
import path from 'node:path';
import { atomicWriteFile } from './atomic-write.js';
import { noteWrittenText } from './edit-diagnostics.js';
import { isBinaryContent } from './binary.js';
import { canEncode, decodeText, describeEncoding, detectLineEndings, encodeText, hasUtf16LeBom, type LineEndings, type TextEncoding } from './encoding.js';
import { FileToolError } from './errors.js';
import { notRegularFileMessage, openBoundRegularFile, readWholeFile } from './file-kind.js';
import { formatBytes } from './format.js';
import { requireCheckedPath } from './opened-file.js';
import { readSmallBoundFileSync, SMALL_READ_MAX_BYTES } from './read-small.js';

/** Files larger than this are not edited in memory (Edit, Write, NotebookEdit). */
export const MAX_EDITABLE_BYTES = 128 * 1024 * 1024;

export interface LoadedTextFile {
  readonly bytes: Buffer;
  readonly stats: fs.Stats;
  /** Decoded, BOM removed, line endings as in the file. */
  readonly text: string;
  readonly encoding: TextEncoding;
  readonly lineEndings: LineEndings;
  /** The real path of the object read (its descriptor's name): a write back must replace that object, no other. */
  readonly real: string;
}

/**
 * With `context`, what is opened must be what the call's permission decision covers (opened-file.ts): a link flipped
 * to another file in between is refused before its bytes are read — they would show in a stale-file diff or a snippet.
 */
export async function loadTextFileForWrite(absPath: string, stats: fs.Stats, verb: 'edit' | 'write', context?: ToolUseContext): Promise<LoadedTextFile> {
  if (!stats.isFile()) throw new FileToolError(notRegularFileMessage(absPath, stats, verb), 'NOT_REGULAR_FILE');
  const checked = context ? ({ context, access: 'write' } as const) : undefined;
  // A small file (most edits): opened, bound and read without the thread pool (read-small.ts), as Read does — four
  // thread-pool round trips fewer per Edit and Write. A stat size of 0 (a /proc file) takes the handle path.
  const small = stats.size > 0 && stats.size <= SMALL_READ_MAX_BYTES ? readSmallBoundFileSync(absPath, stats, checked) : undefined;
  if (small !== undefined) return decodedForWrite(absPath, verb, small.bytes, small.stat, small.real);
  const { handle, stat, real } = await openBoundRegularFile(absPath, stats, checked);
  let bytes: Buffer;
  let fresh: fs.Stats;
  try {
    // The size is the opened object's, told only once the open is bound: a stat by name can be of a file a link was
    // flipped to, a denied one (docs/security.md §2).
    if (stat.size > MAX_EDITABLE_BYTES) {
      throw new FileToolError(
        `File is too large to ${verb} (${formatBytes(stat.size)}). Maximum editable file size is ${formatBytes(MAX_EDITABLE_BYTES)}.`,
        'FILE_TOO_LARGE',
      );
    }
    bytes = await readWholeFile(handle, MAX_EDITABLE_BYTES, stat.size);
    fresh = await handle.stat();
  } finally {
    await handle.close().catch(() => {});
  }
  return decodedForWrite(absPath, verb, bytes, fresh, real);
}

function decodedForWrite(absPath: string, verb: 'edit' | 'write', bytes: Buffer, fresh: fs.Stats, real: string): LoadedTextFile {
  if (!hasUtf16LeBom(bytes) && isBinaryContent(bytes)) {
    throw new FileToolError(`Cannot ${verb} ${absPath}: it appears to be a binary file.`, 'BINARY_FILE');
  }
  const { text, encoding } = decodeText(bytes);
  return { bytes, stats: fresh, text, encoding, lineEndings: detectLineEndings(text), real };
}

export interface WrittenTextFile {
  readonly bytes: Buffer;
  readonly stats: fs.Stats;
}

/**
 * `context`: the file written — the folder opened for the write, and the name in it — must be what the call's
 * permission decision covers (opened-file.ts); and when the path (as given) lies inside a working directory, its
 * folder must really be inside one when it is written. A link in the path that leads elsewhere, or was flipped there
 * after the permission check, is refused and nothing is written.
 */
export async function writeTextFile(absPath: string, text: string, encoding: TextEncoding, context?: ToolUseContext, readFrom?: string): Promise<WrittenTextFile> {
  if (!canEncode(text, encoding)) {
    throw new FileToolError(
      `Cannot write ${absPath}: the file is ${describeEncoding(encoding)}, and the new text has characters that encoding cannot hold.`,
      'UNENCODABLE',
    );
  }
  const bytes = encodeText(text, encoding);
  const { stats } = await atomicWriteFile(absPath, bytes, {
    // The data is fsync'd before the rename, the folder is not (atomic-write.ts: durability against speed).
    syncFolder: false,
    confineTo: context ? confinement(absPath, context) : undefined,
    checkTarget: context
      ? (real) => {
          requireCheckedPath(real, absPath, { context, access: 'write' });
          if (readFrom !== undefined && real !== readFrom) throw notWhatWasRead(absPath, readFrom, real);
        }
      : undefined,
  });
  if (context) noteWrittenText(context, absPath, text);
  return { bytes, stats };
}

/** A write back to another object than the one read: the text came from one file, it would replace another. */
function notWhatWasRead(absPath: string, readFrom: string, real: string): FileToolError {
  return new FileToolError(
    `Refused to write ${absPath}: it was read as ${readFrom}, and now leads to ${real} (a link in the path changed in between). Nothing was written; read it again.`,
    'PATH_CHANGED',
  );
}

function confinement(absPath: string, context: ToolUseContext): string[] | undefined {
  const permissionContext = context.getAppState().toolPermissionContext;
  const dirs = [permissionContext.cwd, ...[...permissionContext.additionalWorkingDirectories.values()].map((d) => d.path)];
  const inside = (p: string, dir: string) => p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);
  if (!dirs.some((d) => inside(absPath, path.resolve(d)))) return undefined;
  const roots = new Set<string>();
  for (const d of dirs) {
    roots.add(path.resolve(d));
    try {
      roots.add(fs.realpathSync(d));
    } catch {
      // a working directory that is gone confines nothing
    }
  }
  return [...roots];
}
