/**
 * A one-answer command's output, written to fd 1 directly. `process.stdout` makes a stream on first use — for a pipe
 * (how a host reads a hook) a net.Socket, with net, the stream modules and their bindings: milliseconds of a command
 * that runs once per tool call of its host, for a few hundred bytes. A descriptor its reader left non-blocking
 * (EAGAIN) gets the rest through the stream, which waits for it; any other error (EPIPE: the reader is gone) is the
 * caller's, as the stream's would be.
 */
import { writeSync } from 'node:fs';

export function writeStdout(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let at = 0;
  while (at < bytes.length) {
    try {
      at += writeSync(1, bytes, at, bytes.length - at);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      process.stdout.write(bytes.subarray(at));
      return;
    }
  }
}
