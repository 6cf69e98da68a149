/**
 * `toolgate worker --restate URL`: serves tool calls (and durable sessions) for the Restate backend. See
 * docs/distributed.md for laying workers out over several machines.
 */
import type { Command } from 'commander';
import { runWorker } from '../../distributed/run-worker.js';

interface WorkerFlags {
  restate: string;
  admin?: string;
  concurrency: string;
  processes: string;
  listen?: string;
  advertise?: string;
  workspace: string[];
  pool?: string;
  tools: string[];
  register: boolean;
  stateDir?: string;
  sessions?: boolean;
  toolPool?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function positiveInt(flag: string, value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} expects a positive integer, got "${value}"`);
  return n;
}

export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('serve tool calls for the Restate backend (registers itself with the Restate admin API)')
    .requiredOption('--restate <url>', 'Restate ingress URL, e.g. http://127.0.0.1:8080')
    .option('--admin <url>', 'Restate admin URL (default: the ingress host, port 9070)')
    .option('--concurrency <n>', 'most calls running at once per process', '64')
    .option('--processes <n>', 'worker processes sharing one port on this machine', '1')
    .option('--listen <host:port>', 'address to serve on (default 127.0.0.1, a free port)')
    .option('--advertise <url>', 'URL Restate reaches this worker at (a load balancer in front of several machines)')
    .option('--workspace <dir>', 'a workspace this worker serves (repeatable; default: the current directory)', collect, [])
    .option('--pool <name>', 'worker pool (one per set of machines that see the same workspaces)')
    .option('--tools <module>', 'a module exporting extra `tools` (repeatable)', collect, [])
    .option('--no-register', 'do not register with the admin API (someone else registers the shared URL)')
    .option('--state-dir <dir>', 'where per-session files of this worker go')
    .option('--sessions', 'also serve durable sessions (the agent loop; reads ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL)')
    .option('--tool-pool <name>', 'the worker pool durable sessions send tool calls to (default: default)')
    .action((flags: WorkerFlags) =>
      runWorker({
        restate: flags.restate,
        admin: flags.admin,
        concurrency: positiveInt('--concurrency', flags.concurrency),
        processes: positiveInt('--processes', flags.processes),
        listen: flags.listen,
        advertise: flags.advertise,
        workspaces: flags.workspace,
        pool: flags.pool,
        toolModules: flags.tools,
        register: flags.register,
        stateDir: flags.stateDir,
        sessions: flags.sessions === true,
        toolPool: flags.toolPool,
      }),
    );
}
