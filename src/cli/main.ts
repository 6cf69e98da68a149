/**
 * The `toolgate` command line. Each command lives in `commands/`; this file only wires them to commander and turns
 * usage errors into one line on stderr and a non-zero exit.
 *
 * As with `claude`, the bare command is the agent: `toolgate "PROMPT"` opens the session with the prompt sent,
 * `toolgate -p "PROMPT"` prints the answer, and every flag of `toolgate run` works without the word `run`. A first
 * word that names a command (`toolgate mcp`, `toolgate check`) is that command. A prompt that is a command's name is
 * passed after `-p` (as with `claude -p mcp`), after `--` (`toolgate -- mcp`: toolgate's reading of `--`; claude runs
 * the command there), or after `run` (`toolgate run mcp`).
 */
// First: it sets how zod builds every schema made after it.
import './zod-jitless.js';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, type Option } from 'commander';
import { keepWasmOnBaselineTier } from '../tool/wasm-tiering.js';

// A command is a short process: no wasm function (llhttp behind fetch, the bash grammar) is worth a TurboFan compile
// that the exit would wait for (src/tool/wasm-tiering.ts).
keepWasmOnBaselineTier();

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
  hook: () => import('./commands/hook.js').then((m) => m.registerHookCommand),
  plugin: () => import('./commands/plugin.js').then((m) => m.registerPluginCommand),
};

/** `-v`/`--version`, as claude prints its own (`2.1.328 (Claude Code)`). */
export function versionLine(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return `${pkg.version} (toolgate)`;
}

/** What the arguments ask for: a command by name, the agent (`run`'s flags without the word), or the root's help/version. */
export type Route = { readonly kind: 'command'; readonly name: string } | { readonly kind: 'run' } | { readonly kind: 'root' };

const ROOT_FLAGS = new Set(['-h', '--help', '-v', '--version']);

/**
 * Reads the arguments as commander would read the bare command with `run`'s options (`options`): option values are
 * skipped (a variadic option takes words up to the next flag), and the first other word decides — a command's name is
 * that command unless `-p`/`--print` came before it; anything else (or nothing, or `--`) is the agent.
 */
export function routeOf(args: readonly string[], options: readonly Option[]): Route {
  let print = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') return { kind: 'run' };
    if (arg.startsWith('-') && arg !== '-') {
      const eq = arg.indexOf('=');
      const flag = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
      if (ROOT_FLAGS.has(flag)) return { kind: 'root' };
      const option = options.find((o) => o.short === flag || o.long === flag);
      // An unknown flag: the agent's parser says so (with its usage).
      if (!option) return { kind: 'run' };
      if (option.long === '--print') print = true;
      const inline = eq !== -1 && arg.startsWith('--');
      if (inline || !(option.required || option.optional)) continue;
      if (option.variadic) {
        while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) i++;
      } else if (option.required || !args[i + 1]?.startsWith('-')) {
        i++;
      }
      continue;
    }
    if (!print && Object.hasOwn(COMMANDS, arg)) return { kind: 'command', name: arg };
    if (!print && arg === 'help') return { kind: 'root' };
    return { kind: 'run' };
  }
  return { kind: 'run' };
}

/** The program for `argv`, and the arguments to parse (the agent's get `run` put in front). */
export async function createProgram(argv: readonly string[] = process.argv): Promise<{ program: Command; args: string[] }> {
  const { registerRunCommand } = await import('./commands/run.js');
  const scratch = new Command();
  registerRunCommand(scratch);
  const run = scratch.commands[0]!;
  const program = new Command()
    .name('toolgate')
    .description(
      'The tool system of a coding agent: tools, permissions, executor.\n\n' +
        'Without a command, the agent: `toolgate` opens the interactive session, `toolgate "PROMPT"` opens it with the prompt sent,\n' +
        '`toolgate -p "PROMPT"` prints the answer and exits (as `claude -p`). The options below are those of `toolgate run`.\n' +
        'A prompt that is a command\'s name goes after -p, after --, or after run (`toolgate -- mcp`).',
    )
    .usage('[options] [command] [prompt]')
    .version(versionLine(), '-v, --version', 'output the version number')
    .showHelpAfterError('(run with --help for usage)')
    // The root's options end at a command's name: `toolgate run -p x` is run's -p, not the root's copy of it.
    .enablePositionalOptions()
    .exitOverride();
  // The agent's options on the root too: listed by --help, and accepted before a command's name.
  for (const option of run.options) program.addOption(option);
  const args = argv.slice(2);
  const route = routeOf(args, run.options);
  if (route.kind === 'run') {
    registerRunCommand(program);
    return { program, args: [...argv.slice(0, 2), 'run', ...args] };
  }
  const wanted = route.kind === 'command' ? [route.name] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) register(program);
  return { program, args: [...argv] };
}

export async function main(argv: readonly string[] = process.argv): Promise<number> {
  const { program, args } = await createProgram(argv);
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

// Not a top-level await: the CLI is also bundled as a CommonJS script (scripts/bundle-cli.mjs).
void main().then((code) => {
  process.exitCode = code;
});
