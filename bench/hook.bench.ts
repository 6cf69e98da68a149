/**
 * `toolgate hook`, the policy engine as another agent's hook (issue 37).
 * - hook.command_plain_ms / hook.command_pipeline_ms: the command hook as Claude Code runs it (bin/toolgate.js, the
 *   CLI bundle and its `hook` code cache), one PreToolUse request on stdin and the answer read from a pipe, whole
 *   process from spawn to exit; each run paired with `node -e 0` fed the same stdin (baseline: their median). Median
 *   of 15 pairs after a warm-up pair. `git status` (parsed in JS) and `grep … | head` (the bash grammar's first parse).
 * - hook.http_median_ms / hook.http_decisions_per_s / hook.http_server_cpu_us: `toolgate hook serve` as a child
 *   process, logging every decision as it does by default; the client is this process, on the same machine (RawConnection:
 *   prepared request bytes, answers read by Content-Length and checked byte for byte, so it takes as little of the
 *   two cores as it can). 2,000 sequential requests on one kept-alive connection (median round trip), then 20,000
 *   requests on 32 kept-alive connections, one in flight on each (decisions per second, and the server's CPU time per
 *   decision from /proc: 1,000,000 / it is what one core of server could answer).
 * - hook.prompts.*: the real Claude Code (installed on demand outside the repository, as test/hook-claude-code.test.ts
 *   does), headless against the scripted server, on toolgate's corpus (test/fixtures/hook-corpus.ts) — benign: how
 *   many everyday commands were not run (headless, a prompt is a denial) in a project without Read denies and
 *   (`_read_deny`) in one that denies `Read(./.env)`, Claude Code alone, with `toolgate hook
 *   --allow`, and with public hooks installed the same way from npm into a scratch folder (@torka/claude-qol's
 *   pattern-list auto-approver, cc-safety-net's blocker) or cloned (hall-pass, the shfmt-based auto-approver; see
 *   hallPass); adversarial: how many ran. Baseline of
 *   each: Claude Code alone. hook.engine_adversarial_allowed: the corpus's adversarial commands toolgate's engine
 *   alone allows.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { parseHookRequest } from '../src/cli/commands/hook-hosts.js';
import { HookJudge } from '../src/cli/commands/hook-judge.js';
import { ADVERSARIAL, BENIGN, makeCorpusProject, ran, type CorpusCommand } from '../test/fixtures/hook-corpus.js';
import { ensureClaudeCode, runClaudeCode } from '../test/helpers/claude-code.js';
import { ensureBuilt, median, type Benchmark, type BenchFigure } from './lib.js';

const repoRoot = path.resolve(import.meta.dirname, '..');
const bin = path.join(repoRoot, 'bin', 'toolgate.js');
const PAIRS = 15;

function timeRun(args: readonly string[], input: string, env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    // stdout a pipe that is read, as a host reads its hook's answer (not /dev/null: a pipe is what a command's
    // writes to stdout cost in the host).
    const child = spawn(process.execPath, [...args], { cwd, env, stdio: ['pipe', 'pipe', 'ignore'] });
    child.stdout.resume();
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - start) : reject(new Error(`${args.join(' ')} exited with ${code}`))));
    child.stdin.end(input);
  });
}

function scratchProject(): { dir: string; proj: string; env: NodeJS.ProcessEnv } {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-hook-')));
  const proj = path.join(dir, 'proj');
  makeCorpusProject(proj);
  fs.mkdirSync(path.join(dir, 'home', '.claude'), { recursive: true });
  return { dir, proj, env: { ...process.env, HOME: path.join(dir, 'home'), XDG_STATE_HOME: path.join(dir, 'state'), CLAUDE_PROJECT_DIR: proj } };
}

const preToolUse = (proj: string, command: string) =>
  JSON.stringify({ session_id: 'bench', transcript_path: '/dev/null', cwd: proj, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command }, tool_use_id: 'toolu_1' });

async function commandFigures(): Promise<BenchFigure[]> {
  ensureBuilt();
  const { dir, proj, env } = scratchProject();
  try {
    const out: BenchFigure[] = [];
    for (const [name, command] of [
      ['hook.command_plain_ms', 'git status'],
      ['hook.command_pipeline_ms', 'grep -n hello README.md | head -20'],
    ] as const) {
      const input = preToolUse(proj, command);
      const runs: number[] = [];
      const bare: number[] = [];
      for (let i = 0; i <= PAIRS; i++) {
        const b = await timeRun(['-e', '0'], input, env, proj);
        const r = await timeRun([bin, 'hook', '--allow'], input, env, proj);
        if (i === 0) continue;
        bare.push(b);
        runs.push(r);
      }
      out.push({ name, value: median(runs), unit: 'ms', baseline: median(bare) });
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function httpFigures(): Promise<BenchFigure[]> {
  ensureBuilt();
  const { dir, proj, env } = scratchProject();
  const token = 'bench-token';
  // As a user runs it: every decision logged (to the scratch state folder).
  const server = spawn(process.execPath, [bin, 'hook', 'serve', '--port', '0', '--allow'], { cwd: proj, env: { ...env, TOOLGATE_HOOK_TOKEN: token }, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const url = await new Promise<URL>((resolve, reject) => {
      let text = '';
      server.stderr.on('data', (c: Buffer) => {
        text += c.toString();
        const m = /listening on (http:\/\/\S+)/.exec(text);
        if (m) resolve(new URL(m[1]!.replace(/[;,]$/, '')));
      });
      server.once('exit', (code) => reject(new Error(`toolgate hook serve exited with ${code}: ${text}`)));
    });
    const bodies = ['git status', 'grep -n hello README.md | head -20', 'rm -rf build', 'npm install left-pad'].map((c) => preToolUse(proj, c));
    // Each request's answer as node:http reads it: what every later answer to the same request must be, byte for byte.
    const agent = new http.Agent({ keepAlive: true });
    const answers = await Promise.all(bodies.map((body) => postOnce(url, token, body, agent)));
    agent.destroy();
    const requests = bodies.map((body, i) => ({ bytes: requestBytes(url, token, body), answer: answers[i]! }));
    const connections = await Promise.all(Array.from({ length: 32 }, () => RawConnection.open(url)));
    try {
      for (let i = 0; i < 200; i++) await connections[0]!.send(requests[i % requests.length]!);
      const times: number[] = [];
      for (let i = 0; i < 2000; i++) {
        const t = performance.now();
        await connections[0]!.send(requests[i % requests.length]!);
        times.push(performance.now() - t);
      }
      const total = 20_000;
      let next = 0;
      const cpuBefore = cpuMsOf(server.pid!);
      const start = performance.now();
      await Promise.all(
        connections.map(async (c) => {
          while (next < total) await c.send(requests[next++ % requests.length]!);
        }),
      );
      const perSecond = total / ((performance.now() - start) / 1000);
      const cpu = cpuMsOf(server.pid!);
      return [
        { name: 'hook.http_median_ms', value: median(times), unit: 'ms' },
        { name: 'hook.http_decisions_per_s', value: perSecond, unit: 'decisions/s' },
        ...(cpu !== undefined && cpuBefore !== undefined ? [{ name: 'hook.http_server_cpu_us', value: ((cpu - cpuBefore) * 1000) / total, unit: 'µs/decision' }] : []),
      ];
    } finally {
      for (const c of connections) c.socket.destroy();
    }
  } finally {
    server.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function requestBytes(url: URL, token: string, body: string): Buffer {
  const head = `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
  return Buffer.from(head + body);
}

function postOnce(url: URL, token: string, body: string, agent: http.Agent): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`status ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * One kept-alive connection with one request in flight, as a host's HTTP hook sends them — written from prepared bytes
 * and its answer read by Content-Length, so the client (on the same two cores) costs a fraction of what node:http
 * costs and the figure is the server's. Every answer is checked: status 200 and the body the server gave before.
 */
class RawConnection {
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { answer: Buffer; resolve: () => void; reject: (e: Error) => void } | undefined;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('error', (e) => this.#fail(e));
    socket.on('close', () => this.#fail(new Error('the server closed the connection')));
  }

  static open(url: URL): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: url.hostname, port: Number(url.port) }, () => resolve(new RawConnection(socket)));
      socket.setNoDelay(true);
      socket.once('error', reject);
    });
  }

  send(request: { bytes: Buffer; answer: Buffer }): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting = { answer: request.answer, resolve, reject };
      this.socket.write(request.bytes);
    });
  }

  #read(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const end = this.#buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.#buffer.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) return this.#fail(new Error(`an answer without Content-Length: ${head}`));
    const bodyEnd = end + 4 + Number(length[1]);
    if (this.#buffer.length < bodyEnd) return;
    const body = this.#buffer.subarray(end + 4, bodyEnd);
    this.#buffer = this.#buffer.subarray(bodyEnd);
    const waiting = this.#waiting;
    this.#waiting = undefined;
    if (!head.startsWith('HTTP/1.1 200 ')) waiting?.reject(new Error(`answered ${head.split('\r\n')[0]}`));
    else if (!body.equals(waiting?.answer ?? Buffer.alloc(0))) waiting?.reject(new Error(`a different answer: ${body.toString()}`));
    else waiting?.resolve();
  }

  #fail(error: Error): void {
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.reject(error);
  }
}

/** A process's CPU time (user + system) in ms, from /proc; undefined where there is none. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

let ticks: number | undefined;
function clockTicks(): number {
  if (ticks === undefined) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticks = 100;
    }
  }
  return ticks;
}

/** A hook as Claude Code would run it: a name and the command line of its PreToolUse command hook; or why not here. */
type HookUnderTest = { name: string; command?: string; skip?: string };

function npmHook(scratch: string, pkg: string, command: (root: string) => string): HookUnderTest {
  const name = pkg.replace(/@[^@/]+$/, '');
  try {
    const prefix = path.join(scratch, name.replace(/[@/]/g, '_'));
    fs.mkdirSync(prefix, { recursive: true });
    // No install scripts: they would write into the real ~/.claude.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--prefix', prefix, pkg], { stdio: 'pipe', timeout: 300_000 });
    return { name, command: command(path.join(prefix, 'node_modules', name)) };
  } catch (error) {
    return { name, skip: `npm install ${pkg} failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
}

/**
 * hall-pass (worktron/hall-pass), the shfmt-based auto-approver: cloned from $TOOLGATE_BENCH_HALL_PASS (a path or git
 * URL; default its GitHub repository), run with bun (from PATH, else npm's @oven/bun-<os>-<arch> package) and its own
 * npm dependencies; it needs shfmt on PATH (Debian's `shfmt` package reads as it expects).
 */
function hallPass(scratch: string): HookUnderTest {
  const name = 'hall-pass';
  const onPath = (p: string) => (process.env.PATH ?? '').split(':').find((d) => d !== '' && fs.existsSync(path.join(d, p)));
  if (onPath('shfmt') === undefined) return { name, skip: 'hall-pass needs shfmt on PATH (apt-get install shfmt)' };
  const clone = path.join(scratch, 'hall-pass');
  try {
    execFileSync('git', ['clone', '--quiet', '--depth', '1', process.env.TOOLGATE_BENCH_HALL_PASS ?? 'https://github.com/worktron/hall-pass.git', clone], { stdio: 'pipe', timeout: 120_000 });
  } catch (error) {
    return { name, skip: `git clone failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}); set TOOLGATE_BENCH_HALL_PASS to a clone` };
  }
  let bun = onPath('bun') !== undefined ? path.join(onPath('bun')!, 'bun') : undefined;
  try {
    if (bun === undefined) {
      const pkg = `@oven/bun-${process.platform}-${process.arch === 'arm64' ? 'aarch64' : process.arch}`;
      execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefix', path.join(scratch, 'bun'), `${pkg}@1.4.4`], { stdio: 'pipe', timeout: 300_000 });
      bun = path.join(scratch, 'bun', 'node_modules', pkg, 'bin', 'bun');
    }
    execFileSync(bun, ['install', '--production'], { cwd: clone, stdio: 'pipe', timeout: 300_000 });
  } catch (error) {
    return { name, skip: `bun or hall-pass's dependencies could not be installed (${error instanceof Error ? error.message.split('\n')[0] : String(error)})` };
  }
  return { name, command: `${JSON.stringify(bun)} ${JSON.stringify(path.join(clone, 'src', 'hook.ts'))}` };
}

async function promptFigures(): Promise<BenchFigure[]> {
  ensureBuilt();
  const claude = ensureClaudeCode();
  if ('skip' in claude) {
    process.stderr.write(`bench hook.prompts: skipped: ${claude.skip}\n`);
    return [];
  }
  const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-hooks-')));
  try {
    const hooks: HookUnderTest[] = [
      { name: 'claude-code-alone' },
      { name: 'toolgate', command: `${JSON.stringify(process.execPath)} ${JSON.stringify(bin)} hook --allow` },
      npmHook(scratch, '@torka/claude-qol@0.3.0', (root) => `python3 ${JSON.stringify(path.join(root, 'hooks', 'auto_approve_safe.py'))}`),
      npmHook(scratch, 'cc-safety-net@2.4.5', (root) => `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(root, 'dist', 'bin', 'cc-safety-net.js'))} hook --claude-code`),
      hallPass(scratch),
    ];
    const results = new Map<string, { prompted: number; promptedDeny: number; ran: number }>();
    for (const hook of hooks) {
      if (hook.skip !== undefined) {
        process.stderr.write(`bench hook.prompts.${hook.name}: skipped: ${hook.skip}\n`);
        continue;
      }
      const benign = await corpusRun(claude.bin, scratch, hook, BENIGN, false);
      const benignDeny = await corpusRun(claude.bin, scratch, hook, BENIGN, true);
      const adversarial = await corpusRun(claude.bin, scratch, hook, ADVERSARIAL, true);
      results.set(hook.name, { prompted: benign.filter((o) => !o.ran).length, promptedDeny: benignDeny.filter((o) => !o.ran).length, ran: adversarial.filter((o) => o.ran).length });
    }
    const alone = results.get('claude-code-alone');
    const out: BenchFigure[] = [];
    for (const [name, r] of results) {
      out.push({ name: `hook.prompts.${name}.benign_prompted`, value: r.prompted, unit: `of ${BENIGN.length}`, ...(alone && name !== 'claude-code-alone' ? { baseline: alone.prompted } : {}) });
      out.push({ name: `hook.prompts.${name}.benign_prompted_read_deny`, value: r.promptedDeny, unit: `of ${BENIGN.length}`, ...(alone && name !== 'claude-code-alone' ? { baseline: alone.promptedDeny } : {}) });
      out.push({ name: `hook.prompts.${name}.adversarial_ran`, value: r.ran, unit: `of ${ADVERSARIAL.length}`, ...(alone && name !== 'claude-code-alone' ? { baseline: alone.ran } : {}) });
    }
    out.push({ name: 'hook.engine_adversarial_allowed', value: await engineAllowed(scratch), unit: `of ${ADVERSARIAL.length}` });
    return out;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** One Claude Code session over `commands` with `hook` (or none) in the user's settings; per command, whether it ran. */
async function corpusRun(claude: string, scratch: string, hook: HookUnderTest, commands: readonly CorpusCommand[], readDeny: boolean): Promise<{ command: string; ran: boolean }[]> {
  const dir = fs.mkdtempSync(path.join(scratch, 'run-'));
  const proj = path.join(dir, 'proj');
  const home = path.join(dir, 'home');
  makeCorpusProject(proj, {}, { readDeny });
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  const settings = hook.command !== undefined ? { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: hook.command }] }] } } : {};
  fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify(settings));
  const run = await runClaudeCode(claude, { cwd: proj, home, commands: commands.map((c) => c.command), env: { XDG_STATE_HOME: path.join(dir, 'state') } });
  return commands.map((c, i) => {
    const o = run.outcomes[i];
    // An adversarial command ran when it left its mark; an everyday one when Claude Code returned its output.
    const didRun = c.marker !== undefined || c.leaksSecret === true ? ran(proj, c, o?.result) : o?.isError === false;
    return { command: c.command, ran: didRun };
  });
}

async function engineAllowed(scratch: string): Promise<number> {
  const proj = path.join(scratch, 'engine-proj');
  makeCorpusProject(proj);
  const judge = new HookJudge({ allow: true, homeDir: path.join(scratch, 'engine-home'), managedSettingsPath: path.join(scratch, 'none.json'), projectDir: proj });
  let allowed = 0;
  for (const c of ADVERSARIAL) {
    const request = parseHookRequest({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: c.command }, cwd: proj }, 'claude', proj);
    if ((await judge.judge(request)).answer.kind === 'allow') allowed++;
  }
  return allowed;
}

export const benchmarks: Benchmark[] = [
  { group: 'hook', names: ['hook.command_plain_ms', 'hook.command_pipeline_ms'], run: commandFigures },
  { group: 'hook', names: ['hook.http_median_ms', 'hook.http_decisions_per_s', 'hook.http_server_cpu_us'], run: httpFigures },
  { group: 'hook', names: ['hook.prompts', 'hook.engine_adversarial_allowed'], run: promptFigures },
];
