/**
 * `toolgate sandbox check`: whether the Bash sandbox can run here, in one line — and if not, what is missing. It
 * proves it by running `true` inside the sandbox, the way a Bash call would.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { CommanderError, type Command } from 'commander';
import { detectSandbox, shutdownSandboxRuntime, wrapInSandbox } from '../../agent/sandbox.js';

export async function sandboxCheck(): Promise<{ ok: boolean; line: string }> {
  const availability = await detectSandbox();
  if (!availability.available) return { ok: false, line: `sandbox: unavailable: ${availability.reason}` };
  try {
    const tmp = os.tmpdir();
    const launch = await wrapInSandbox(
      'true',
      { denyRead: [], allowWrite: [tmp], denyWrite: [], network: { unrestricted: false, allowedDomains: [], deniedDomains: [] } },
      availability,
      { commandId: 'toolgate-sandbox-check', commandText: 'true' },
    );
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(launch.file, [...launch.args], { stdio: 'ignore' });
      child.once('exit', (c) => resolve(c));
      child.once('error', () => resolve(null));
    });
    launch.release();
    if (code !== 0) return { ok: false, line: `sandbox: unavailable: a trial command inside the sandbox exited with ${code}` };
  } catch (error) {
    return { ok: false, line: `sandbox: unavailable: the sandbox runtime could not start: ${(error as Error).message.split('\n')[0]}` };
  } finally {
    await shutdownSandboxRuntime();
  }
  return {
    ok: true,
    line: `sandbox: available (@anthropic-ai/sandbox-runtime; bwrap ${availability.bwrapPath}, socat ${availability.socatPath}, rg ${availability.rgPath})`,
  };
}

export function registerSandboxCommand(program: Command): void {
  const sandbox = program.command('sandbox').description('the OS sandbox Bash commands run in (settings key `sandbox`)');
  sandbox
    .command('check')
    .description('say whether the sandbox can run here, and if not what is missing (exit 1)')
    .action(async () => {
      const { ok, line } = await sandboxCheck();
      process.stdout.write(`${line}\n`);
      // main() turns a CommanderError into its exit code without printing anything more.
      if (!ok) throw new CommanderError(1, 'toolgate.sandbox.unavailable', line);
    });
}
