/**
 * The `toolgate` command line. Each command lives in `commands/`; this file names them for `program.ts`, which wires
 * them to commander and turns usage errors into one line on stderr and a non-zero exit.
 *
 * As with `claude`, the bare command is the agent: `toolgate "PROMPT"` opens the session with the prompt sent,
 * `toolgate -p "PROMPT"` prints the answer, and every flag of `toolgate run` works without the word `run`. A first
 * word that names a command (`toolgate mcp`, `toolgate check`) is that command. A prompt that is a command's name is
 * passed after `-p` (as with `claude -p mcp`), after `--` (`toolgate -- mcp`: toolgate's reading of `--`; claude runs
 * the command there), or after `run` (`toolgate run mcp`).
 */
// First (it imports ./zod-jitless.js first): it sets how zod builds every schema made after it.
import { runCli, type Commands } from './program.js';

/**
 * Each command's module, loaded only when that command runs (or for the full `--help`): a command's module pulls in
 * its layers (tree-sitter for `check`, the MCP SDK for `mcp`…), and loading all of them was most of the start-up
 * time of every command. The installed command runs the hot ones from one script each (scripts/bundle-cli.mjs).
 */
const COMMANDS: Commands = {
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

runCli(COMMANDS);
