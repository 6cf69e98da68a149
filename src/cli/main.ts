/**
 * The `toolgate` command line. Each command lives in `commands/`; this file only wires them to commander and turns
 * usage errors into one line on stderr and a non-zero exit.
 */
import { Command, CommanderError } from 'commander';
import { registerToolsCommand } from './commands/tools.js';
import { registerExecCommand } from './commands/exec.js';
import { registerCheckCommand } from './commands/check.js';
import { registerGrantsCommand } from './commands/grants.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerMcpCommand } from './commands/mcp.js';
import { registerRunCommand } from './commands/run.js';
import { registerWorkerCommand } from './commands/worker.js';

export function createProgram(): Command {
  const program = new Command()
    .name('toolgate')
    .description('The tool system of a coding agent: tools, permissions, executor.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerToolsCommand(program);
  registerExecCommand(program);
  registerCheckCommand(program);
  registerGrantsCommand(program);
  registerSandboxCommand(program);
  registerMcpCommand(program);
  registerRunCommand(program);
  registerWorkerCommand(program);
  return program;
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const program = createProgram();
  try {
    await program.parseAsync([...argv]);
    // A command may set its own code (a signal's 128 + n) without throwing.
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander has already printed the message (and help for --help/--version, which exit 0).
      return error.exitCode;
    }
    process.stderr.write(`toolgate: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

process.exitCode = await main();
