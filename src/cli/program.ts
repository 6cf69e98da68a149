/**
 * The `toolgate` program: the root command, how the arguments pick a command, and the run that turns usage errors
 * into one line on stderr and a non-zero exit. The commands come from the entry (`main.ts`: every command; the
 * installed command's script for one command, scripts/bundle-cli.mjs), so an entry holds only the commands it names.
 */
// First: it sets how zod builds every schema made after it.
import './zod-jitless.js';
import { readFileSync } from 'node:fs';
import { Command, CommanderError, type Option } from 'commander';
import { keepWasmOnBaselineTier } from '../tool/wasm-tiering.js';

export type Register = (program: Command) => void;

/**
 * Each command's module by name, loaded only when that command runs (or for the full `--help`): a command's module
 * pulls in its layers (tree-sitter for `check`, the MCP SDK for `mcp`...). `run` is the agent, whose options the root
 * also takes; an entry without it runs only its named commands.
 */
export type Commands = Readonly<Record<string, () => Promise<Register>>>;

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
export function routeOf(args: readonly string[], options: readonly Option[], commands: Commands): Route {
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
    if (!print && Object.hasOwn(commands, arg)) return { kind: 'command', name: arg };
    if (!print && arg === 'help') return { kind: 'root' };
    return { kind: 'run' };
  }
  return { kind: 'run' };
}

/** The root command, without the agent's options. */
function rootProgram(): Command {
  return new Command()
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
}

/** The program for `argv`, and the arguments to parse (the agent's get `run` put in front). */
export async function createProgram(argv: readonly string[], commands: Commands): Promise<{ program: Command; args: string[] }> {
  const args = argv.slice(2);
  const first = args[0];
  // A command's name first (how hosts and scripts call toolgate): no root option can come before it, so the agent's
  // options (the `run` module and its layers) are not loaded only to be skipped.
  if (first !== undefined && first !== 'run' && Object.hasOwn(commands, first)) {
    const program = rootProgram();
    (await commands[first]!())(program);
    return { program, args: [...argv] };
  }
  const loadRun = commands.run;
  if (loadRun === undefined) throw new Error(`this entry runs only: ${Object.keys(commands).join(', ')}`);
  const registerRunCommand = await loadRun();
  const scratch = new Command();
  registerRunCommand(scratch);
  const run = scratch.commands[0]!;
  const program = rootProgram();
  // The agent's options on the root too: listed by --help, and accepted before a command's name.
  for (const option of run.options) program.addOption(option);
  const route = routeOf(args, run.options, commands);
  if (route.kind === 'run') {
    registerRunCommand(program);
    return { program, args: [...argv.slice(0, 2), 'run', ...args] };
  }
  const wanted = route.kind === 'command' ? [route.name] : Object.keys(commands);
  for (const register of await Promise.all(wanted.map((name) => commands[name]!()))) register(program);
  return { program, args: [...argv] };
}

export async function main(argv: readonly string[], commands: Commands): Promise<number> {
  const { program, args } = await createProgram(argv, commands);
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


/**
 * Runs the command line with these commands and sets the exit code. Not a top-level await: the CLI is also bundled
 * as CommonJS scripts (scripts/bundle-cli.mjs).
 */
export function runCli(commands: Commands, argv: readonly string[] = process.argv): void {
  // A command is a short process: no wasm function (llhttp behind fetch, the bash grammar) is worth a TurboFan compile
  // that the exit would wait for (src/tool/wasm-tiering.ts).
  keepWasmOnBaselineTier();
  void main(argv, commands).then((code) => {
    process.exitCode = code;
  });
}
