/** Runs the real `toolgate` CLI from the TypeScript sources (what bin/toolgate.js does without dist/). */
import { execFile } from 'node:child_process';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function toolgate(args: readonly string[], options: { input?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), ...args],
      { cwd: options.cwd ?? repoRoot, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    // A command may stop reading before the end of its input (a hook refusing a huge request): not the test's error.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input ?? '');
  });
}
