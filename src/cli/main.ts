/**
 * The `toolgate` command line. Each command lives in `commands/`; this file only wires them to commander and turns
 * usage errors into one line on stderr and a non-zero exit.
 */
import { Command, CommanderError } from 'commander';

type Register = (program: Command) => void;

/**
 * Each command's module, loaded only when that command runs (or for the full `--help`): a command's module pulls in
 * its layers (tree-sitter for `check`, the MCP SDK for `mcp`…), and loading all of them was most of the start-up
 * time of every command.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Register>>> = {
  tools: () => import('./commands/tools.js').then((m) => m.registerToolsCommand),
  exec: () => import('./commands/exec.js').then((m) => m.registerExecCommand),
  check: () => import('./commands/check.js').then((m) => m.registerCheckCommand),
  grants: () => import('./commands/grants.js').then((m) => m.registerGrantsCommand),
  sandbox: () => import('./commands/sandbox.js').then((m) => m.registerSandboxCommand),
  mcp: () => import('./commands/mcp.js').then((m) => m.registerMcpCommand),
  run: () => import('./commands/run.js').then((m) => m.registerRunCommand),
  worker: () => import('./commands/worker.js').then((m) => m.registerWorkerCommand),
};

/** The program with the commands `argv` names (all of them when it names none: `toolgate --help`, a typo). */
export async function createProgram(argv: readonly string[] = process.argv): Promise<Command> {
  const program = new Command()
    .name('toolgate')
    .description('The tool system of a coding agent: tools, permissions, executor.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  const named = argv.slice(2).find((a) => !a.startsWith('-'));
  const wanted = named !== undefined && named in COMMANDS ? [named] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) register(program);
  return program;
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  // `toolgate` alone on a terminal: the interactive session (`run` without a prompt).
  const args = argv.slice(2).length === 0 && process.stdin.isTTY === true && process.stdout.isTTY === true ? [...argv, 'run'] : [...argv];
  const program = await createProgram(args);
  try {
    await program.parseAsync(args);
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
