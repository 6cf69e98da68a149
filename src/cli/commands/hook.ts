/**
 * `toolgate hook` — toolgate's permission engine as the hook of the agent people already run:
 *   toolgate hook [--host claude|gemini|codex] [--allow] [--policy FILE]…   one request on stdin, the answer on stdout
 *   toolgate hook serve [--port N | --socket PATH] …                        the same as an HTTP hook (long-lived)
 *   toolgate hook install|uninstall [--host H] [--user|--project|--local] [--http] [--allow]
 *   toolgate hook log [-n N] [--json]                                        recent decisions with their traces
 * The command hook always exits 0 with JSON (every host reads JSON on 0); whatever goes wrong is the host's
 * fail-closed answer (ask), never silence. Protocols: hook-hosts.ts; judgement: hook-judge.ts.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { writeStdout } from '../stdout.js';
import { HOOK_HOSTS, type HookHost } from './hook-hosts.js';

export interface HookCommonOptions {
  host?: string;
  allow?: boolean;
  policy: string[];
  addDir: string[];
  projectDir?: string;
  home?: string;
  managedSettings?: string;
  log: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** Past this, a request that has not been answered is answered ask: a host waits up to 10 minutes and then lets the call run. */
const DEADLINE_MS = 30_000;

export function withJudgeOptions(cmd: Command): Command {
  return cmd
    .option('--host <host>', `the agent whose hook protocol to speak: ${HOOK_HOSTS.join(', ')} (default: claude; gemini when the event is BeforeTool)`)
    .option('--allow', 'answer allow where the engine allows (a hook allow skips the host prompt); default: leave those calls to the host')
    .option('--policy <file>', 'a toolgate policy file or inline JSON, read as a --settings file (repeatable)', collect, [])
    .option('--add-dir <dir>', 'a working directory the host was given that its hook input does not carry (repeatable)', collect, [])
    .option('--project-dir <dir>', 'the project whose settings apply (default: $CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR, else found from the request cwd)')
    .option('--home <dir>', 'home directory for user settings (default: $HOME)')
    .option('--managed-settings <file>', 'managed policy file (default: the platform location)')
    .option('--no-log', 'write no entry to the decision log');
}

export function parseHost(value: string | undefined): HookHost | undefined {
  if (value === undefined) return undefined;
  if (!(HOOK_HOSTS as readonly string[]).includes(value)) throw new Error(`--host must be one of ${HOOK_HOSTS.join(', ')}`);
  return value as HookHost;
}

export function registerHookCommand(program: Command): void {
  const hook = withJudgeOptions(
    program
      .command('hook')
      .description("answer one hook request of Claude Code, Gemini CLI or Codex (stdin) with toolgate's permission engine")
      .addHelpText('after', '\nSet-up: toolgate hook install (Claude Code), --host gemini, --host codex. Decisions: toolgate hook log.'),
  ).action(async (opts: HookCommonOptions) => {
    await runCommandHook(opts);
  });

  withJudgeOptions(hook.command('serve').description('serve hook requests over HTTP on 127.0.0.1 (or a Unix socket), bearer token required'))
    .option('--port <n>', 'port on 127.0.0.1 (default 0: any free port, printed)', '0')
    .option('--socket <path>', 'listen on this Unix socket instead of a port')
    .option('--token-env <name>', 'environment variable holding the bearer token (absent or empty: the token file in the state folder)', 'TOOLGATE_HOOK_TOKEN')
    .action(async (opts: HookCommonOptions & { port: string; socket?: string; tokenEnv: string }) => {
      const { runHookServer } = await import('./hook-serve.js');
      await runHookServer(opts);
    });

  for (const verb of ['install', 'uninstall'] as const) {
    hook
      .command(verb)
      .description(verb === 'install' ? "write toolgate's hook entry into the host's settings (idempotent) and show what changed" : "remove toolgate's hook entries from the host's settings")
      .option('--host <host>', `${HOOK_HOSTS.join(', ')} (default: claude)`, 'claude')
      .option('--user', "the user's settings (default)")
      .option('--project', "the project's shared settings (committed)")
      .option('--local', "the project's local settings (Claude Code only)")
      .option('--project-dir <dir>', 'the project (default: the current directory)')
      .option('--home <dir>', 'home directory (default: $HOME)')
      .option('--http', 'Claude Code: an HTTP hook pointing at toolgate hook serve instead of a command hook')
      .option('--port <n>', 'with --http: the port toolgate hook serve listens on', '7823')
      .option('--allow', 'install the hook with --allow (it answers allow where the engine allows)')
      .option('--policy <file>', 'install the hook with this policy file (repeatable)', collect, [])
      .option('--dry-run', 'show what would change, change nothing')
      .action(async (opts: Record<string, unknown>) => {
        const { runHookInstall } = await import('./hook-install.js');
        runHookInstall(verb, opts);
      });
  }

  hook
    .command('log')
    .description('recent decisions of the hook, with their traces (secrets redacted)')
    .option('-n, --lines <n>', 'how many entries', '20')
    .option('--json', 'print the entries as JSON Lines')
    .action(async (opts: { lines: string; json?: boolean }) => {
      const { formatHookLogEntry, hookLogFile, readHookLog } = await import('./hook-log.js');
      const n = Number.parseInt(opts.lines, 10);
      if (!Number.isInteger(n) || n <= 0) throw new Error('--lines takes a positive number');
      const entries = readHookLog(n);
      if (opts.json) {
        for (const e of entries) process.stdout.write(`${JSON.stringify(e)}\n`);
        return;
      }
      if (entries.length === 0) process.stdout.write(`no decisions logged yet (${hookLogFile()})\n`);
      for (const e of entries) process.stdout.write(`${formatHookLogEntry(e)}\n\n`);
    });
}

/** The command hook: one request on stdin, one JSON answer on stdout, exit 0, whatever happens. */
async function runCommandHook(opts: HookCommonOptions): Promise<void> {
  let answered = false;
  let host: HookHost | undefined;
  const { failClosedOutput } = await import('./hook-hosts.js');
  const failClosed = (why: string) => {
    if (answered) return;
    answered = true;
    writeStdout(`${JSON.stringify(failClosedOutput(host ?? 'claude', undefined, why))}\n`);
    process.exitCode = 0;
  };
  const deadline = setTimeout(() => {
    failClosed(`no answer within ${DEADLINE_MS / 1000} s`);
    process.exit(0);
  }, DEADLINE_MS);
  deadline.unref();
  process.once('uncaughtException', (error) => {
    failClosed(`internal error: ${error.message}`);
    process.exit(0);
  });
  try {
    host = parseHost(opts.host);
    const text = await readStdin();
    const [{ answerHook }, { HookJudge }, { appendHookLog }] = await Promise.all([import('./hook-answer.js'), import('./hook-judge.js'), import('./hook-log.js')]);
    const judge = new HookJudge(judgeOptions(opts));
    const { output, entry } = await answerHook(text, { ...(host !== undefined ? { host } : {}), cwd: process.cwd(), log: opts.log }, judge);
    if (!answered) {
      answered = true;
      writeStdout(`${JSON.stringify(output)}\n`);
    }
    if (entry !== undefined) appendHookLog(entry);
  } catch (error) {
    failClosed(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(deadline);
    process.exitCode = 0;
  }
}

/** The judge's options from the command line and the host's environment. */
export function judgeOptions(opts: HookCommonOptions): import('./hook-judge.js').HookJudgeOptions {
  // Never from the tool input: the host's own word (its environment), or the request's cwd (hook-judge.ts projectRootOf).
  const projectDir = [opts.projectDir, process.env.CLAUDE_PROJECT_DIR, process.env.GEMINI_PROJECT_DIR].find((d) => d !== undefined && d !== '');
  return {
    allow: opts.allow === true,
    policyFiles: opts.policy,
    additionalDirectories: opts.addDir,
    ...(opts.home !== undefined ? { homeDir: opts.home } : {}),
    ...(opts.managedSettings !== undefined ? { managedSettingsPath: opts.managedSettings } : {}),
    ...(projectDir !== undefined ? { projectDir: path.resolve(projectDir) } : {}),
  };
}

/**
 * All of stdin, up to one byte past the limit (answerHook refuses what is larger, without reading gigabytes). Read
 * from fd 0 directly: process.stdin would make a stream (and for a pipe a socket) this one-shot read has no use for.
 * A descriptor the host left non-blocking (EAGAIN) is read as a stream.
 */
async function readStdin(): Promise<string> {
  const { MAX_HOOK_REQUEST_BYTES } = await import('./hook-answer.js');
  const { readSync } = await import('node:fs');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const chunk = Buffer.allocUnsafe(64 * 1024);
      const n = readSync(0, chunk, 0, chunk.length, null);
      if (n === 0) return Buffer.concat(chunks).toString('utf8');
      chunks.push(chunk.subarray(0, n));
      size += n;
      if (size > MAX_HOOK_REQUEST_BYTES) return Buffer.concat(chunks).toString('utf8');
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
  }
  return readStdinStream(chunks, size, MAX_HOOK_REQUEST_BYTES);
}

async function readStdinStream(chunks: Buffer[], start: number, max: number): Promise<string> {
  let size = start;
  for await (const chunk of process.stdin) {
    const b = chunk as Buffer;
    size += b.length;
    chunks.push(b);
    if (size > max) {
      process.stdin.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
