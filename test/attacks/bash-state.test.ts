/**
 * Invariant 1 (docs/security.md, "1. Bash session state"): a call can never change what a later call does beyond
 * what the engine approved. Each case is a real attack through the real runtime (createToolRuntime: the permission
 * engine in default mode, the executor, real bash, real git, real npm and node, real files): a first call the engine
 * allows on its own (read-only, or by a narrow rule) or that a person approved for what it shows, then a later call
 * the engine allows, which the planted state would turn into something else. The sign of success is a file the
 * planted code makes (`pwned`), or a directory or value the session should never have taken.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import type { ToolRuntime } from '../../src/agent/types.js';
import type { ToolResultBlockParam, ToolUseBlock } from '../../src/tool/tool.js';
import { READ_ONLY_SPECS } from '../../src/permissions/bash/read-only-specs.js';
import { findProgram } from '../../src/tools/bash/state-policy.js';
import { contextOf } from '../../src/agent/runtime-context.js';

let root: string;
let proj: string;
let outside: string;
let pwned: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-attack-state-')));
  proj = path.join(root, 'proj');
  outside = path.join(root, 'outside');
  pwned = path.join(root, 'pwned');
  mkdirSync(path.join(proj, 'sub'), { recursive: true });
  mkdirSync(path.join(proj, 'other'));
  mkdirSync(outside);
});
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.dispose()));
  rmSync(root, { recursive: true, force: true });
});

interface Session {
  readonly rt: ToolRuntime;
  /** Every prompt: the command and the engine's message. */
  readonly asked: { command: string; message: string }[];
}

/** A session in default mode: `allow` rules, and a person who approves exactly the commands `approve` names. */
async function session(options: { allow?: string[]; approve?: readonly string[]; settings?: Record<string, unknown> } = {}): Promise<Session> {
  const asked: Session['asked'] = [];
  const rt = await createToolRuntime({
    cwd: proj,
    sessionDir: path.join(root, `.session-${runtimes.length}`),
    settings: { sources: [], object: options.settings ?? {} },
    mode: 'default',
    rules: { allow: options.allow ?? [] },
    onPermissionRequest: async (r) => {
      const command = String(r.input.command);
      asked.push({ command, message: r.ask.message });
      return options.approve?.includes(command) ? { behavior: 'allow' } : { behavior: 'deny', message: 'not approved' };
    },
  });
  runtimes.push(rt);
  return { rt, asked };
}

let ids = 0;
const text = (r: ToolResultBlockParam): string =>
  typeof r.content === 'string' ? r.content : (r.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

async function sh(s: Session, command: string, extra: Record<string, unknown> = {}): Promise<string> {
  const block = { type: 'tool_use', id: `toolu_state_${++ids}`, name: 'Bash', input: { command, ...extra } } as ToolUseBlock;
  const { results } = await s.rt.run([block]);
  return text(results[0]!);
}

/**
 * A command that prints, line by line, whether each variable is set in the session's shell — read-only to the engine
 * (`echo "${X-unset}"` is not: a `${…}` expansion asks, docs/security.md "Bash command analysis: the older classes").
 */
const isSet = (...names: string[]): string => names.map((n) => `[[ -v ${n} ]] && echo set || echo unset`).join('; ');

/** NUL-terminated records as the prologue writes them (session-env.ts parses them). */
const records = (...list: string[]): string => list.map((r) => `${r}\0`).join('');
const declarations = (vars: Record<string, string>): string =>
  Object.entries(vars)
    .map(([k, v]) => `declare -x ${k}="${v}"`)
    .join('\n');
/** A complete forged capture: empty start, `vars` at exit, optional function records. */
const forgedCapture = (vars: Record<string, string>, functions: string[] = []): string =>
  records('S', 'R', `E${declarations(vars)}`, ...(functions.length > 0 ? ['f', ...functions] : []), 'Z');
const script = (file: string, body: string): void => {
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
};
/** The shell's state descriptor, as bash picks it (`exec {fd}>&3`: the lowest free one from 10). */
const STATE_FD = 10;

describe('forged records through the state descriptor', () => {
  it('the descriptor the attacks write to is the state file (control)', async () => {
    const s = await session({ approve: ['readlink /proc/self/fd/10'] });
    expect(await sh(s, 'readlink /proc/self/fd/10')).toMatch(/\.output\.state$/);
  });

  it('a read-only call (cat committed-file >&10) plants nothing, and a later git status runs no fsmonitor', async () => {
    execFileSync('git', ['init', '-q'], { cwd: proj });
    script(path.join(proj, 'evil.sh'), `touch '${pwned}'`);
    writeFileSync(
      path.join(proj, 'forged'),
      forgedCapture({ PLANTED: 'yes', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: path.join(proj, 'evil.sh') }),
    );
    const s = await session();
    await sh(s, `cat forged >&${STATE_FD}`);
    await sh(s, 'git status');
    expect(s.asked).toEqual([]); // both calls are read-only: the engine allowed them on its own
    expect(existsSync(pwned)).toBe(false);
    expect(await sh(s, isSet('PLANTED'))).toBe('unset');
  });

  it('a call allowed by Bash(npm test:*) whose test code appends records to the state file plants nothing', async () => {
    writeFileSync(path.join(proj, 'forged'), forgedCapture({ PLANTED: 'by-npm-test' }));
    // Test code that finds its shell's state file through /proc (the descriptor is not inherited through npm). The
    // shell's own descriptor still writes from offset 0 at the end: room is left there for its directory record.
    writeFileSync(
      path.join(proj, 'forge.cjs'),
      `const fs = require('fs'); let pid = process.ppid;
       const room = Buffer.alloc(Buffer.byteLength('C' + fs.realpathSync('.') + '\\n\\0'), 'x');
       while (pid > 1) {
         try { const target = fs.readlinkSync('/proc/' + pid + '/fd/${STATE_FD}'); if (target.endsWith('.state')) { fs.appendFileSync(target, Buffer.concat([room, fs.readFileSync('forged')])); console.log('appended'); break; } } catch {}
         pid = Number(fs.readFileSync('/proc/' + pid + '/stat', 'utf8').split(') ')[1].split(' ')[1]);
       }`,
    );
    writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'node forge.cjs' } }));
    const s = await session({ allow: ['Bash(npm test:*)'] });
    expect(await sh(s, 'npm test')).toContain('appended');
    expect(s.asked).toEqual([]);
    expect(await sh(s, isSet('PLANTED'))).toBe('unset');
  });

  it('a call whose text sets one variable keeps that one only, whatever else the records say', async () => {
    // The real start records stay; the command writes an exit record of its own (its real variables and one more)
    // and sends the shell's own exit records to stderr by pointing the prologue's descriptor variable elsewhere (an
    // assignment the engine allows). Exporting foo carries it over to every later command: the engine asks (it used
    // to allow the call as read-only), and a person approves the export they see.
    const command = `export foo=1; { printf E; declare -px; printf 'declare -x PLANTED="yes"\\0Z\\0'; } >&${STATE_FD}; __toolgate_cwd_fd=2`;
    const s = await session({ approve: [command] });
    const out = await sh(s, command);
    expect(s.asked.map((a) => a.command)).toEqual([command]);
    expect(s.asked[0]!.message).toContain('it sets foo for every later command');
    expect(out).toContain('(not kept for later commands: PLANTED — the shell reported a change the command');
    expect(await sh(s, `echo "$foo"; ${isSet('PLANTED')}`)).toBe('1\nunset');
  });

  it('a forged function from a read-only call is not kept; a function a later call names is asked about', async () => {
    // A read-only program this machine does not have: a function of that name hides nothing and the engine would
    // let `<name>` run as read-only.
    const name = Object.keys(READ_ONLY_SPECS).find((n) => /^[a-z]+$/.test(n) && findProgram(n, process.env.PATH, proj) === undefined);
    // Written reason for the guard: every read-only program the engine knows is installed here, so no name is free.
    if (name === undefined) return;
    const fn = `F${name}\n${name} () \n{ \n    touch '${pwned}'\n}`;
    writeFileSync(path.join(proj, 'forged'), forgedCapture({}, [fn]));
    const s = await session({ approve: [`. ./defs.sh`] });
    await sh(s, `cat forged >&${STATE_FD}`);
    await sh(s, name);
    expect(existsSync(pwned)).toBe(false);
    // The same function from a command a person approved for what it shows (`. ./defs.sh`): kept, but a later
    // `<name>` is the function, not the read-only program, and the engine asks.
    writeFileSync(path.join(proj, 'defs.sh'), `${name}() { touch '${pwned}'; }\n`);
    await sh(s, '. ./defs.sh');
    await sh(s, name);
    expect(existsSync(pwned)).toBe(false);
    expect(s.asked.map((a) => a.command)).toEqual(['. ./defs.sh', name]);
    expect(s.asked[1]!.message).toContain(`${name} is a shell function an earlier command defined`);
  });
});

describe('functions that act as hooks', () => {
  it('command_not_found_handle from an approved source is not kept: a later missing read-only program runs nothing', async () => {
    const missing = Object.keys(READ_ONLY_SPECS).find((n) => /^[a-z]+$/.test(n) && findProgram(n, process.env.PATH, proj) === undefined);
    // Written reason for the guard: every read-only program the engine knows is installed here.
    if (missing === undefined) return;
    writeFileSync(path.join(proj, 'hook.sh'), `command_not_found_handle() { touch '${pwned}'; }\n`);
    const s = await session({ approve: ['source hook.sh'] });
    expect(await sh(s, 'source hook.sh')).toContain('the function command_not_found_handle');
    await sh(s, missing);
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('variables that make a program run code', () => {
  it('an approved export NODE_OPTIONS=--require … is not kept for a later node call a narrow rule allows', async () => {
    writeFileSync(path.join(proj, 'evil.cjs'), `require('fs').writeFileSync(${JSON.stringify(pwned)}, '')`);
    writeFileSync(path.join(proj, 'ok.js'), 'console.log("ok")');
    const exported = `export NODE_OPTIONS="--require ${path.join(proj, 'evil.cjs')}"`;
    const s = await session({ allow: ['Bash(node ok.js)'], approve: [exported] });
    expect(await sh(s, exported)).toContain('not kept for later commands: NODE_OPTIONS');
    expect(await sh(s, 'node ok.js')).toBe('ok');
    expect(existsSync(pwned)).toBe(false);
  });

  it('an approved export of GIT_CONFIG_* does not override the git safety configuration of a later git status', async () => {
    execFileSync('git', ['init', '-q'], { cwd: proj });
    script(path.join(proj, 'evil.sh'), `touch '${pwned}'`);
    const exported = `export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0=${path.join(proj, 'evil.sh')}`;
    const s = await session({ approve: [exported] });
    // (GIT_CONFIG_KEY_0 is core.fsmonitor already: the safety configuration's first key.)
    expect(await sh(s, exported)).toContain('not kept for later commands: GIT_CONFIG_COUNT, GIT_CONFIG_VALUE_0 — variables that make programs run');
    await sh(s, 'git status');
    expect(existsSync(pwned)).toBe(false);
  });

  it('an approved PATH with the project bin first: the next command runs the runtime’s bash, and a read-only ls asks', async () => {
    mkdirSync(path.join(proj, 'bin'));
    script(path.join(proj, 'bin', 'ls'), `touch '${pwned}'`);
    // A bash of the project's: run as the shell, it would run every later command (and plant the file first).
    script(path.join(proj, 'bin', 'bash'), `touch '${pwned}'; exec /bin/bash "$@"`);
    const exported = `export PATH="${path.join(proj, 'bin')}:$PATH"`;
    const s = await session({ approve: [exported, 'echo hi', 'echo "$PATH"'] });
    await sh(s, exported);
    // bin holds programs the runtime's PATH has (ls, bash) in a folder commands can write: any program could start
    // them by name, so every command asks while this PATH is kept (a person approved this one).
    expect(await sh(s, 'echo hi')).toBe('hi');
    expect(existsSync(pwned)).toBe(false);
    await sh(s, 'ls');
    expect(existsSync(pwned)).toBe(false);
    expect(s.asked.map((a) => a.command)).toEqual([exported, 'echo hi', 'ls']);
    expect(s.asked[1]!.message).toMatch(/hides \S+; any program may start \S+ by name, so every command asks while that PATH is kept/);
    expect(s.asked[2]!.message).toContain(`ls would run ${path.join(proj, 'bin', 'ls')}`);
    // The PATH itself was kept (a venv's works the same way).
    expect(await sh(s, 'echo "$PATH"')).toMatch(new RegExp(`^${path.join(proj, 'bin')}:`));
  });

  it('an approved PATH with a folder outside the project that hides node: npm under Bash(npm test:*) asks (its #!/usr/bin/env node)', async () => {
    // The folder is not one the session's commands can write, so not every command asks; but npm is a script whose
    // `#!/usr/bin/env node` line starts node by name, and node would be the folder's.
    const tools = path.join(root, 'tools');
    mkdirSync(tools);
    script(path.join(tools, 'node'), `touch '${pwned}'`);
    writeFileSync(path.join(proj, 'package.json'), JSON.stringify({ scripts: { test: 'echo ok' } }));
    const exported = `export PATH="${tools}:$PATH"`;
    const s = await session({ allow: ['Bash(npm test:*)'], approve: [exported] });
    await sh(s, exported);
    expect(await sh(s, 'echo hi')).toBe('hi');
    await sh(s, 'npm test');
    expect(existsSync(pwned)).toBe(false);
    expect(s.asked.map((a) => a.command)).toEqual([exported, 'npm test']);
    expect(s.asked[1]!.message).toContain(`npm is a script run by node, which would run ${path.join(tools, 'node')}`);
  });

  it('a PATH change with a relative entry is not kept', async () => {
    mkdirSync(path.join(proj, 'bin'));
    script(path.join(proj, 'bin', 'ls'), `touch '${pwned}'`);
    const exported = 'export PATH=bin:$PATH';
    const s = await session({ approve: [exported] });
    expect(await sh(s, exported)).toContain('the relative PATH entry bin');
    expect(await sh(s, 'echo "$PATH"')).not.toMatch(/^bin:/);
    await sh(s, 'ls');
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('functions', () => {
  it('a function definition asks (it carries over to every later command); approved, it is kept and a later call naming it asks', async () => {
    const define = `greet() { touch '${pwned}'; }`;
    const denied = await session();
    await sh(denied, define);
    expect(denied.asked.map((a) => a.command)).toEqual([define]);
    expect(denied.asked[0]!.message).toContain('it defines the function greet for every later command');
    expect(Object.keys(contextOf(denied.rt).sessionState?.bashShell?.functions ?? {})).toEqual([]);

    const s = await session({ approve: [define] });
    await sh(s, define);
    expect(Object.keys(contextOf(s.rt).sessionState?.bashShell?.functions ?? {})).toEqual(['greet']);
    await sh(s, 'echo hi | grep greet');
    expect(existsSync(pwned)).toBe(false);
    expect(s.asked.map((a) => a.command)).toEqual([define, 'echo hi | grep greet']);
  });
});

describe('the working directory', () => {
  it('a forged record from a read-only call without a cd does not move the session', async () => {
    writeFileSync(path.join(proj, 'forged'), records(`C${path.join(proj, 'other')}\n`));
    const s = await session();
    await sh(s, `cat forged >&${STATE_FD}; __toolgate_cwd_fd=2`);
    expect(s.asked).toEqual([]);
    expect(contextOf(s.rt).getAppState().cwd).toBe(proj);
  });

  it('a forged record naming a symlink to outside is refused, also after a cd whose target is unknown', async () => {
    writeFileSync(path.join(outside, 'secret.txt'), 'outside-secret');
    symlinkSync(outside, path.join(proj, 'link'));
    writeFileSync(path.join(proj, 'forged'), records(`C${path.join(proj, 'link')}\n`));
    const s = await session();
    // `cd "$HOME"` is read-only, and where it leads is not in the text: any directory inside the working ones could
    // be its end, but only as `pwd -P` prints it (no symlink on the way).
    await sh(s, `cd "$HOME"; cat ${path.join(proj, 'forged')} >&${STATE_FD}; __toolgate_cwd_fd=2`);
    expect(s.asked).toEqual([]);
    expect(contextOf(s.rt).getAppState().cwd).toBe(proj);
    expect(await sh(s, 'cat secret.txt')).not.toContain('outside-secret');
  });

  it('a later command is judged from where the shell is: a cd does not open a path a deny rule closes', async () => {
    writeFileSync(path.join(proj, 'sub', 'secret'), 'sub-secret');
    const s = await session();
    const deny = await createToolRuntime({
      cwd: proj,
      sessionDir: path.join(root, '.session-deny'),
      settings: { sources: [] },
      mode: 'default',
      rules: { deny: ['Read(./sub/secret)'] },
      onPermissionRequest: async () => ({ behavior: 'deny', message: 'no' }),
    });
    runtimes.push(deny);
    const d: Session = { rt: deny, asked: [] };
    expect(await sh(d, 'cat sub/secret')).toContain('denied by Read(./sub/secret)');
    await sh(d, 'cd sub');
    expect(await sh(d, 'cat secret')).toContain('denied by Read(./sub/secret)');
    // And a relative path that leaves the directory is judged from it too (inside the project: allowed).
    await sh(s, 'cd sub');
    expect(await sh(s, 'cd .. && pwd')).toBe(proj);
    expect(s.asked).toEqual([]);
  });

  it('a call that cds ends where its cd can lead, not where a forged record says', async () => {
    writeFileSync(path.join(proj, 'forged'), records(`C${path.join(proj, 'other')}\n`));
    const s = await session();
    await sh(s, `cd sub; cat ${path.join(proj, 'forged')} >&${STATE_FD}; __toolgate_cwd_fd=2`);
    expect(s.asked).toEqual([]);
    expect(contextOf(s.rt).getAppState().cwd).not.toBe(path.join(proj, 'other'));
    // Without the forgery, the same kind of call moves it.
    await sh(s, 'cd sub');
    expect(contextOf(s.rt).getAppState().cwd).toBe(path.join(proj, 'sub'));
  });
});

describe('calls that did not finish', () => {
  it('a call aborted or killed at its timeout leaves neither its directory nor its variables', async () => {
    const s = await session({ approve: ['export K=1; cd sub; sleep 30'], settings: { toolgate: { bash: { disableBackgroundTasks: true } } } });
    expect(await sh(s, 'export K=1; cd sub; sleep 30', { timeout: 500 })).toMatch(/killed/);
    expect(contextOf(s.rt).getAppState().cwd).toBe(proj);
    expect(await sh(s, isSet('K'))).toBe('unset');

    const controller = new AbortController();
    const block = { type: 'tool_use', id: `toolu_state_${++ids}`, name: 'Bash', input: { command: 'cd sub; sleep 30' } } as ToolUseBlock;
    const run = s.rt.run([block], { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 400));
    controller.abort();
    await run;
    expect(contextOf(s.rt).getAppState().cwd).toBe(proj);
  });

  it('a denied call or one moved to the background leaves nothing (guards: nothing of theirs is read)', async () => {
    const s = await session({ approve: ['cd sub; export B=1; sleep 1'] });
    expect(await sh(s, 'export D=1; cd sub')).toContain('not approved');
    const moved = await sh(s, 'cd sub; export B=1; sleep 1', { timeout: 200 });
    expect(moved).toContain('moved to the background');
    const id = /with ID: (\S+)\./.exec(moved)?.[1] ?? /ID: (\S+)/.exec(moved)![1]!;
    await contextOf(s.rt).services.tasks!.wait(id.replace(/\.$/, ''), { timeoutMs: 10_000 });
    expect(contextOf(s.rt).getAppState().cwd).toBe(proj);
    expect(await sh(s, isSet('D', 'B'))).toBe('unset\nunset');
  });
});

describe('what stays as it was', () => {
  it('cd, export and a venv carry over; while the venv’s bin hides the system’s python3 every command asks', async () => {
    const venv = path.join(proj, '.venv');
    execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
    const echo = 'echo "$FOO $VIRTUAL_ENV"';
    const s = await session({ approve: ['export FOO=1', 'source .venv/bin/activate', echo, 'python3 --version'] });
    await sh(s, 'cd sub');
    expect(contextOf(s.rt).getAppState().cwd).toBe(path.join(proj, 'sub'));
    await sh(s, 'export FOO=1');
    await sh(s, 'cd ..');
    await sh(s, 'source .venv/bin/activate');
    // The venv's python3 reads the project's site-packages (a .pth file there runs code) and its file can be replaced:
    // any program may start it by name, so the engine cannot know what a command runs — it asks, and the person sees why.
    expect(await sh(s, echo)).toBe(`1 ${venv}`);
    expect(readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8')).toContain('home');
    await sh(s, 'python3 --version');
    expect(s.asked.map((a) => a.command)).toEqual(['export FOO=1', 'source .venv/bin/activate', echo, 'python3 --version']);
    expect(s.asked[2]!.message).toContain(`put ${path.join(venv, 'bin')} on PATH in front of the runtime's programs`);
    expect(s.asked[2]!.message).toMatch(/any program may start \S+ by name, so every command asks while that PATH is kept/);
    expect(s.asked[3]!.message).toContain(`python3 would run ${path.join(venv, 'bin', 'python3')}`);
  });
});
