/**
 * The prompt of a headless run, as `claude -p` reads it: the arguments; stdin when it is piped; both when both are
 * there — the prompt, a newline, then stdin's text unchanged (`git diff | toolgate -p "review this"`).
 *
 * With a prompt argument, stdin may be a pipe nobody writes to (a program that leaves its child's stdin open): as
 * claude does, toolgate waits 3 s for the first byte, then says so on stderr and goes on with the argument alone.
 */

/** How long a run with a prompt argument waits for piped stdin to start (claude's 3 s). */
export const STDIN_WAIT_MS = 3_000;

export interface PromptSource {
  readonly isTTY?: boolean;
  on(event: 'data', listener: (chunk: Buffer | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeAllListeners(event?: string): unknown;
  destroy(): unknown;
  resume(): unknown;
}

export async function readPrompt(
  words: readonly string[],
  stdin: PromptSource = process.stdin,
  warn: (text: string) => void = (text) => process.stderr.write(`${text}\n`),
): Promise<string> {
  const argument = words.join(' ').trim();
  if (stdin.isTTY === true) return argument;
  const piped = await readAll(stdin, argument === '' ? undefined : STDIN_WAIT_MS, () =>
    warn('Warning: no stdin data received in 3s, proceeding without it. If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer.'),
  );
  if (argument === '') return piped.trim();
  return piped === '' ? argument : `${argument}\n${piped}`;
}

/** Everything on `stream` until its end; with `waitMs`, '' when nothing has come by then (`onGiveUp` is called). */
function readAll(stream: PromptSource, waitMs: number | undefined, onGiveUp: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout | undefined;
    const done = (text: string) => {
      clearTimeout(timer);
      stream.removeAllListeners('data');
      stream.removeAllListeners('end');
      stream.removeAllListeners('error');
      resolve(text);
    };
    if (waitMs !== undefined) {
      timer = setTimeout(() => {
        if (chunks.length > 0) return;
        onGiveUp();
        // Nothing will be read from it: let go of it, so the open pipe does not keep the process alive.
        stream.destroy();
        done('');
      }, waitMs);
    }
    stream.on('data', (chunk) => {
      clearTimeout(timer);
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    });
    stream.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
    stream.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    stream.resume();
  });
}
