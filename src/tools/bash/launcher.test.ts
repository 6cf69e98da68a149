/**
 * The command launcher (launcher.ts) starts a command exactly as Node's spawn does: the same environment, descriptors,
 * session and group, signal state, working directory and argv[0]; the same exit code or signal; a command it cannot
 * start is started by the spawn, with the spawn's own error. Each comparison runs the same command both ways, with real
 * perl and real bash. Then what happens when the launcher dies, and that it never keeps Node alive by itself.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { markedProcesses, PROCESS_MARKER } from '../../hooks/process-marker.js';
import { launcherPid, whenLauncherReady } from './launcher.js';
import { ShellProcess, type ShellExit } from './shell-process.js';
import { waitFor } from './test-helpers/project.js';

const linux = process.platform === 'linux';
let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-launcher-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function shell(command: string, options: { direct?: boolean; cwd?: string; env?: NodeJS.ProcessEnv; killGraceMs?: number } = {}): ShellProcess {
  const saved = process.env.TOOLGATE_BASH_LAUNCHER;
  if (options.direct === true) process.env.TOOLGATE_BASH_LAUNCHER = '0';
  try {
    const id = `b${++n}`;
    const env = options.env ?? { ...process.env };
    return new ShellProcess({ id, command, cwd: options.cwd ?? dir, env, outputFile: path.join(dir, `${id}.output`), killGraceMs: options.killGraceMs ?? 100, maxOutputBytes: 1e8, pollIntervalMs: 50 });
  } finally {
    if (saved === undefined) delete process.env.TOOLGATE_BASH_LAUNCHER;
    else process.env.TOOLGATE_BASH_LAUNCHER = saved;
  }
}

/** Runs `command` once through the launcher (or, with `direct`, Node's spawn). */
async function run(command: string, options: Parameters<typeof shell>[1] = {}) {
  const proc = shell(command, options);
  await proc.started;
  const exit: ShellExit = await proc.exited;
  return { exit, output: readFileSync(proc.outputFile, 'utf8'), proc };
}

/** Both ways, with the ids and numbers that differ by nature masked. */
async function both(command: string, options: Parameters<typeof run>[1] = {}) {
  const launched = await run(command, options);
  const direct = await run(command, { ...options, direct: true });
  const mask = (text: string) => text.replace(/\bb\d+\b/g, 'b#').replace(/\b\d{2,}\b/g, '#');
  return { launched: { ...launched, raw: launched.output, output: mask(launched.output) }, direct: { ...direct, raw: direct.output, output: mask(direct.output) } };
}

async function ready(): Promise<number> {
  // Node may exit while waiting for the launcher's hello (it holds no handle then): a timer holds the loop.
  const hold = setInterval(() => {}, 1_000);
  try {
    expect(await whenLauncherReady()).toBe(true);
  } finally {
    clearInterval(hold);
  }
  return launcherPid()!;
}

const alive = (pid: number) => spawnSync('kill', ['-0', String(pid)]).status === 0;
const parentOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
/** The live processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (parentOf(Number(name)) === pid) out.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}
/** The launcher's spare once it has one: the process its next command will be. */
async function spareOf(launcher: number): Promise<number> {
  await waitFor(() => childrenOf(launcher).length === 1, 10_000, 'the launcher to fork its spare');
  return childrenOf(launcher)[0]!;
}

describe.runIf(linux)('the command launcher', () => {
  beforeAll(ready);

  it('starts a command as the spawn does: environment, descriptors, session, signals, cwd, argv[0], stdin', async () => {
    const probe = [
      'env -0 | sort -z | tr "\\0" "\\n"',
      'ls -l /proc/self/fd | sed "s/.* \\([0-9]*\\) -> /\\1 -> /" | tail -n +2',
      '[ "$(ps -o sid= -p $$ | tr -d " ")" = $$ ] && [ "$(ps -o pgid= -p $$ | tr -d " ")" = $$ ] && echo session-and-group-leader',
      'grep -E "^Sig(Blk|Ign|Cgt)" /proc/self/status',
      'pwd; echo "$0"; cat; ulimit -n; umask; echo "parent=$PPID"',
    ].join('; ');
    const { launched, direct } = await both(probe, { env: { ...process.env, WITH_NEWLINE: 'a\nb', WITH_EQUALS: 'x=y', EMPTY: '' } });
    expect(launched.raw).toContain('session-and-group-leader');
    expect(launched.raw).toContain('WITH_NEWLINE=a\nb');
    expect(launched.raw).toContain('SigBlk:\t0000000000000000');
    expect(launched.raw).toContain('SigIgn:\t0000000000000000');
    expect(launched.output).toBe(direct.output);
    expect(launched.exit.code).toBe(0);
    // Started by the launcher, not by this process.
    expect(direct.raw).toContain(`parent=${process.pid}\n`);
    expect(launched.raw).toContain(`parent=${launcherPid()}\n`);
  });

  it('gives exactly the environment asked for, with the marker and nothing else', async () => {
    // `sh`'s `env` would be a second program: the shell's own export list, NUL-safe, of the variables it was given.
    const env = { PATH: process.env.PATH, HOME: '/nowhere', WITH_NEWLINE: 'a\nb', WITH_EQUALS: 'x=y', EMPTY: '', 'ODD NAME': 'v', 'É': 'é' };
    const { launched, direct } = await both('env -0', { env });
    const vars = (raw: string) => raw.split('\0').filter((v) => v !== '' && !/^(PWD|SHLVL|_)=/.test(v)).sort();
    expect(vars(launched.raw)).toEqual(vars(direct.raw).map((v) => v.replace(/\.b\d+$/, `.${launched.proc.id}`)));
    expect(vars(launched.raw)).toEqual(
      ['EMPTY=', 'HOME=/nowhere', 'ODD NAME=v', `PATH=${process.env.PATH}`, `TOOLGATE_PGROUP=${launched.proc.marker}`, 'WITH_EQUALS=x=y', 'WITH_NEWLINE=a\nb', 'É=é'].sort(),
    );
  });

  it('reports exit codes and signals as the spawn does: `exit 143` is not SIGTERM', async () => {
    for (const [command, code, signal] of [
      ['true', 0, null],
      ['exit 7', 7, null],
      ['exit 143', 143, null],
      ['kill -TERM $$', null, 'SIGTERM'],
      ['kill -KILL $$', null, 'SIGKILL'],
      ['kill -SEGV $$', null, 'SIGSEGV'],
    ] as const) {
      const { launched, direct } = await both(command);
      expect([launched.exit.code, launched.exit.signal]).toEqual([code, signal]);
      expect([direct.exit.code, direct.exit.signal]).toEqual([code, signal]);
    }
  });

  it('keeps output order and the state record (cwd) of the end', async () => {
    const { launched, direct } = await both('echo one; echo two >&2; cd /; echo three');
    expect(launched.output).toBe('one\ntwo\nthree\n');
    expect(launched.output).toBe(direct.output);
    expect(launched.exit.finalCwd).toBe('/');
  });

  it('a command it cannot start is started by the spawn, which reports the same error', async () => {
    const missingCwd = await both('echo never', { cwd: path.join(dir, 'missing') });
    expect(missingCwd.launched.exit.spawnError).toMatch(/ENOENT/);
    expect(missingCwd.launched.exit.spawnError).toBe(missingCwd.direct.exit.spawnError);
    const noBash = await both('echo never', { env: { PATH: path.join(dir, 'nothing-here') } });
    expect(noBash.launched.exit.spawnError).toMatch(/ENOENT/);
    expect(noBash.launched.exit.spawnError).toBe(noBash.direct.exit.spawnError);
  });

  it('many commands at once each get their own exit status', async () => {
    const procs = Array.from({ length: 20 }, (_, i) => shell(`sleep 0.0${i % 10}; exit ${i}`));
    const exits = await Promise.all(procs.map((p) => p.exited));
    expect(exits.map((e) => e.code)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('after a shell command, the next like it runs in the shell started ahead of it: same pid, own session, SECONDS from 0', async () => {
    const launcher = await ready();
    await run('true');
    const warm = await spareOf(launcher);
    // Waiting, it is bash already, the leader of a session of its own.
    expect(readFileSync(`/proc/${warm}/comm`, 'utf8').trim()).toBe('bash');
    expect(readFileSync(`/proc/${warm}/stat`, 'utf8').split(') ')[1]!.split(' ')[3]).toBe(String(warm));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const started = performance.now();
    const { proc, output, exit } = await run('echo "$$ $(pwd) $SECONDS"');
    const elapsed = Math.floor((performance.now() - started) / 1000);
    expect(proc.pid).toBe(warm);
    // SECONDS counts from the command's start: at most the whole seconds the run took (0 on a quiet machine). Not
    // reset, it would count the 1.1 s the shell waited too, so at least one more than that.
    const [pid, cwd, seconds] = output.trim().split(' ');
    expect(`${pid} ${cwd}`).toBe(`${warm} ${dir}`);
    expect(Number(seconds)).toBeLessThanOrEqual(elapsed);
    expect(exit.code).toBe(0);
  });

  it('a command in another directory, or with another environment, retires the waiting shell and starts as before', async () => {
    const launcher = await ready();
    await run('true');
    const warm = await spareOf(launcher);
    const elsewhere = await run('echo "$$ $(pwd)"', { cwd: '/' });
    expect(elsewhere.proc.pid).not.toBe(warm);
    expect(elsewhere.output).toBe(`${elsewhere.proc.pid} /\n`);
    await waitFor(() => !alive(warm), 10_000, 'the waiting shell to be retired');
    const next = await spareOf(launcher);
    const other = await run('echo "$$ $EXTRA"', { cwd: '/', env: { ...process.env, EXTRA: 'x' } });
    expect(other.proc.pid).not.toBe(next);
    expect(other.output).toBe(`${other.proc.pid} x\n`);
    // With BASH_ENV, whose output belongs to the command, no shell is started ahead.
    const startup = path.join(dir, 'startup.sh');
    writeFileSync(startup, 'echo from-bash-env\n');
    const env = { ...process.env, BASH_ENV: startup };
    await run('true', { env });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(childrenOf(launcher).map((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8').trim())).not.toContain('bash');
    expect((await run('echo cmd', { env })).output).toBe('from-bash-env\ncmd\n');
  });

  it('the directory replaced under the same path: the waiting shell is not used', async () => {
    const launcher = await ready();
    const place = path.join(dir, 'replaced');
    mkdirSync(place);
    await run('true', { cwd: place });
    const warm = await spareOf(launcher);
    rmSync(place, { recursive: true });
    mkdirSync(place);
    writeFileSync(path.join(place, 'new.txt'), '');
    const { proc, output } = await run('ls', { cwd: place });
    expect(proc.pid).not.toBe(warm);
    expect(output).toBe('new.txt\n');
  });

  it('a command in the waiting shell is found by a scan for the commands of its process, its children by its own marker', async () => {
    const launcher = await ready();
    await run('true');
    const warm = await spareOf(launcher);
    const proc = shell('sleep 30');
    await proc.started;
    expect(proc.pid).toBe(warm);
    try {
      // The shell's own environment carries <process>.<scope>.warm, what it was started with; its children the command's.
      expect(markedProcesses(PROCESS_MARKER, { prefix: true })).toContain(warm);
      await waitFor(() => markedProcesses(proc.marker).length === 1, 10_000, 'the sleep to start');
      expect(markedProcesses(proc.marker)).not.toContain(warm);
    } finally {
      await proc.kill('abort');
    }
  });

  it('a command in the waiting shell runs as bash -c would: environment, descriptors, signals, status, state, errors', async () => {
    const launcher = await ready();
    const probe = [
      'env -0 | sort -z | tr "\\0" "\\n"',
      'ls -l /proc/self/fd | sed "s/.* \\([0-9]*\\) -> /\\1 -> /" | tail -n +2',
      'grep -E "^Sig(Blk|Ign|Cgt)" /proc/self/status',
      'pwd; echo "$0"; cat; ulimit -n; umask; echo "parent=$PPID"',
      'echo "source=[${BASH_SOURCE[*]}] vars=$(set | grep -c "^__tg_")"',
      'return 3; echo "after return"',
    ].join('; ');
    // Each launched run is made right after one like it, so that it finds the shell waiting.
    const env = { ...process.env };
    const warmBoth = async (command: string) => {
      await run('true', { env });
      const warm = await spareOf(launcher);
      const result = await both(command, { env });
      expect(result.launched.proc.pid).toBe(warm);
      return result;
    };
    const { launched, direct } = await warmBoth(probe);
    expect(launched.raw).toContain(`TOOLGATE_PGROUP=${launched.proc.marker}\n`);
    expect(launched.raw).toContain('SigIgn:\t0000000000000000');
    expect(launched.raw).toContain('source=[] vars=0');
    expect(launched.raw).toContain('after return');
    expect(launched.output.replace('eval: line', '-c: line')).toBe(direct.output);
    expect(launched.raw).toContain(`parent=${launcher}\n`);
    for (const [command, code, signal] of [
      ['exit 7', 7, null],
      ['kill -TERM $$', null, 'SIGTERM'],
      ['echo "unclosed', 2, null],
    ] as const) {
      const result = await warmBoth(command);
      expect([result.launched.exit.code, result.launched.exit.signal]).toEqual([code, signal]);
      expect([result.direct.exit.code, result.direct.exit.signal]).toEqual([code, signal]);
    }
    const syntax = await warmBoth('echo one; if');
    // The one difference: the error names eval, as the line Claude Code's own runner evals does.
    expect(syntax.launched.output).toMatch(/^\S*bash: eval: line \d+: syntax error/);
    expect(syntax.launched.output.replace('eval: line', '-c: line')).toBe(syntax.direct.output);
    const state = await warmBoth('echo one; echo two >&2; cd /; echo three');
    expect(state.launched.output).toBe('one\ntwo\nthree\n');
    expect(state.launched.exit.finalCwd).toBe('/');
  });

  it('a spare killed while it waits: the next command is started by the spawn, once; then a new spare serves', async () => {
    const launcher = await ready();
    await run('true');
    const spare = await spareOf(launcher);
    process.kill(spare, 'SIGKILL');
    // Dead (a zombie until the launcher reaps it) before the request; one killed after it was handed the command is
    // that command killed by SIGKILL, as a process killed right after Node's spawn would be.
    const state = () => (existsSync(`/proc/${spare}/stat`) ? readFileSync(`/proc/${spare}/stat`, 'utf8').split(') ')[1]!.charAt(0) : 'gone');
    await waitFor(() => ['Z', 'gone'].includes(state()), 10_000, 'the spare to die');
    const counter = path.join(dir, 'runs-spare');
    const first = await run(`echo run >> ${counter}; echo "parent=$PPID"`);
    expect(first.exit.code).toBe(0);
    expect(first.output).toBe(`parent=${process.pid}\n`);
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
    const next = await run('echo "parent=$PPID"');
    expect(next.output).toBe(`parent=${launcher}\n`);
  });

  it('a kill ends the whole group it started, also one asked for before the start is confirmed', async () => {
    const marker = `94${process.pid % 1000}${Math.floor(Math.random() * 1e6)}`;
    // A grace long enough that SIGTERM, not the SIGKILL after it, ends bash even on a loaded machine (seen in CI).
    const proc = shell(`sleep ${marker} & sleep ${marker}`, { killGraceMs: 20_000 });
    const exit = await proc.kill('abort');
    expect(exit.killReason).toBe('abort');
    expect(exit.signal).toBe('SIGTERM');
    await waitFor(() => spawnSync('pgrep', ['-f', `^sleep ${marker}`]).status === 1, 10_000, 'both sleeps to end');
  });
});

describe.runIf(linux)('when the launcher dies', () => {
  it('a running command ends with an unknown status and its group is ended; it is never run again', async () => {
    const launcher = await ready();
    const counter = path.join(dir, 'runs-1');
    const proc = shell(`echo run >> ${counter}; sleep 30`);
    await proc.started;
    expect(parentOf(proc.pid!)).toBe(launcher);
    // "Started" is the exec: bash may not have run its first line yet (a clean-clone CI run killed it before).
    await waitFor(() => existsSync(counter), 10_000, 'the command to run');
    process.kill(launcher, 'SIGKILL');
    const exit = await proc.exited;
    expect([exit.code, exit.signal, exit.spawnError]).toEqual([null, null, undefined]);
    expect(exit.lost).toMatch(/launcher ended/);
    await waitFor(() => !alive(proc.pid!), 10_000, 'the command to be ended');
    expect(readFileSync(counter, 'utf8')).toBe('run\n');
  });

  it('a command whose start was never confirmed is an error, not started another way', async () => {
    const launcher = await ready();
    const ran = path.join(dir, 'ran-2');
    process.kill(launcher, 'SIGSTOP');
    const proc = shell(`touch ${ran}`);
    process.kill(launcher, 'SIGKILL');
    const exit = await proc.exited;
    expect(exit.spawnError).toMatch(/before reporting whether the command started/);
    expect(proc.pid).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(existsSync(ran)).toBe(false);
  });

  it('after a second death, commands go through Node’s spawn again', async () => {
    expect(await whenLauncherReady()).toBe(false);
    const { exit, output } = await run('echo "parent=$PPID"; exit 3');
    expect(exit.code).toBe(3);
    expect(output).toBe(`parent=${process.pid}\n`);
  });
});

describe.runIf(linux)('the launcher’s lifetime', () => {
  /** A Node process that runs `body` with the launcher ready; prints what `body` prints. */
  function node(body: string, env: NodeJS.ProcessEnv = process.env) {
    const script = `import { whenLauncherReady, launcherPid } from ${JSON.stringify(path.join(import.meta.dirname, 'launcher.ts'))};
      import { ShellProcess } from ${JSON.stringify(path.join(import.meta.dirname, 'shell-process.ts'))};
      const hold = setInterval(() => {}, 1000);
      await whenLauncherReady();
      clearInterval(hold);
      console.log('launcher', launcherPid());
      const shell = (command) => new ShellProcess({ id: 'b1', command, cwd: ${JSON.stringify(dir)}, env: { ...process.env }, outputFile: ${JSON.stringify(path.join(dir, 'life.output'))}, killGraceMs: 100, maxOutputBytes: 1e8, pollIntervalMs: 50 });
      ${body}`;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'], env });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => out, exited };
  }

  it('ends when the Node process that started it dies, even by SIGKILL, and its spare with it', async () => {
    const { child, output } = node('await shell("true").exited; console.log("ran"); setInterval(() => {}, 1000);');
    await waitFor(() => /ran\n/.test(output()), 30_000, 'the launcher to start and run a command');
    const pid = Number(/launcher (\d+)/.exec(output())![1]);
    expect(readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).toBe('perl');
    const spare = await spareOf(pid);
    child.kill('SIGKILL');
    await waitFor(() => !alive(pid) && !alive(spare), 10_000, 'the launcher and its spare to exit');
  });

  it('is not started by the first command of a process, but by the second', async () => {
    const script = `import { launcherPid } from ${JSON.stringify(path.join(import.meta.dirname, 'launcher.ts'))};
      import { ShellProcess } from ${JSON.stringify(path.join(import.meta.dirname, 'shell-process.ts'))};
      import { readdirSync, readFileSync } from 'node:fs';
      const perls = () => readdirSync('/proc').filter((n) => /^\\d+$/.test(n)).filter((n) => { try { const s = readFileSync('/proc/' + n + '/stat', 'utf8'); return s.includes('(perl)') && s.split(') ')[1].split(' ')[1] === String(process.pid); } catch { return false; } }).length;
      const shell = (id) => new ShellProcess({ id, command: 'echo "$PPID"', cwd: ${JSON.stringify(dir)}, env: { ...process.env }, outputFile: ${JSON.stringify(dir)} + '/first-' + id + '.output', killGraceMs: 100, maxOutputBytes: 1e8, pollIntervalMs: 50 });
      await shell('a').exited;
      console.log('after one', launcherPid() ?? 'none', perls());
      await shell('b').exited;
      for (let i = 0; i < 200 && launcherPid() === undefined; i++) await new Promise((r) => setTimeout(r, 50));
      console.log('after two', launcherPid() === undefined ? 'none' : 'ready', perls());`;
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', env: process.env });
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe('after one none 0\nafter two ready 1\n');
  });

  it('starts despite a PERL5OPT of the user’s, which the commands still get', async () => {
    const { exited, output } = node(`const p = shell('echo "$PERL5OPT"'); await p.exited; console.log('out', (await import('node:fs')).readFileSync(p.outputFile, 'utf8'));`, {
      ...process.env,
      PERL5OPT: '-MNo::Such::Module',
    });
    expect(await exited).toBe(0);
    expect(output()).toMatch(/^launcher \d+\n/);
    expect(output()).toContain('out -MNo::Such::Module\n');
  });

  it('a running command keeps Node alive until its exit is reported; a detached one does not', async () => {
    const kept = node(`const p = shell('sleep 0.3; exit 4'); p.exited.then((e) => console.log('exit', e.code));`);
    expect(await kept.exited).toBe(0);
    expect(kept.output()).toContain('exit 4');
    const detached = node(`const p = shell('sleep 5'); await p.started; p.detachFromEventLoop(); p.exited.then((e) => console.log('exit', e.code)); console.log('pid', p.pid);`);
    expect(await detached.exited).toBe(0);
    expect(detached.output()).not.toContain('exit');
    // The exit hook ended its group as Node left.
    const pid = Number(/pid (\d+)/.exec(detached.output())![1]);
    await waitFor(() => !alive(pid), 10_000, 'the detached command to be ended');
  });
});
