/**
 * The error a file tool throws from `call()` when it refuses or fails: its message is written for the model (the
 * pipeline wraps it in `<tool_use_error>`), and `code` is a stable, telemetry-safe label (`NOT_READ`, `STALE`, an
 * errno code) that error classification reports as `Error:CODE`.
 *
 * Its `name` stays 'Error' on purpose: the pipeline prefixes any other error name to the message the model reads, and
 * these messages must reach the model exactly as Claude Code words them ("File has not been read yet. …").
 */
export class FileToolError extends Error {
  override readonly name = 'Error';
  readonly isFileToolError = true;
  /** The message reaches the model without `<tool_use_error>`, as Claude Code sends this failure (tool-result.ts). */
  readonly unwrappedForModel: boolean;
  constructor(
    message: string,
    readonly code: string = 'FILE_TOOL_ERROR',
    options: { unwrapped?: boolean } = {},
  ) {
    super(message);
    this.unwrappedForModel = options.unwrapped === true;
  }
}

export function isErrnoException(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

/** ENOENT, and ENOTDIR (a path through a regular file), both mean "there is no such file". */
export function isNotFound(error: unknown): boolean {
  return isErrnoException(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR');
}

/** A model-readable message for an fs failure the tool did not foresee (permissions, I/O errors, loops). */
export function describeFsError(error: unknown, filePath: string): FileToolError {
  if (isErrnoException(error)) {
    switch (error.code) {
      case 'EACCES':
      case 'EPERM':
        return new FileToolError(`Permission denied: ${filePath}`, error.code);
      case 'ELOOP':
        return new FileToolError(`Too many levels of symbolic links: ${filePath}`, error.code);
      case 'ENAMETOOLONG':
        return new FileToolError(`File name too long: ${filePath}`, error.code);
      case 'EISDIR':
        return new FileToolError(`${filePath} is a directory, not a file.`, error.code);
      case 'ENOSPC':
        return new FileToolError(`No space left on device while writing ${filePath}`, error.code);
      case 'EROFS':
        return new FileToolError(`Read-only file system: ${filePath}`, error.code);
      default:
        return new FileToolError(`${error.code}: ${error.message}`, error.code);
    }
  }
  return new FileToolError(error instanceof Error ? error.message : String(error));
}
