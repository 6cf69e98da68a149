/**
 * Red team against issue 32's invariant 1 (docs/security.md, "1. Bash session state"): a call can never change what a
 * later call does beyond what the engine approved. Every case here is a hole found in the implementation as it
 * landed (f4ec4fa), kept as an attack test that FAILS while the hole is open: real runtime (createToolRuntime,
 * default mode, the permission engine, the executor), real bash, real files; the model's calls are tool_use blocks.
 * The sign of success is a file the planted code makes (`pwned`) or state the session should never have kept.
 *
 * Tried and held (one line each):
 *  - forged function reached without naming it: `$(greet)` in a heredoc, `"$(greet)"`, `[[ $(greet) ]]`, `x=$(greet)`,
 *    `${x:-$(greet)}`, `<(greet)`, `g\reet`, `g''reet`, `$((1+$(greet)))`, `case $(greet)` — the review asks for each;
 *  - kept functions are not exported to children (`printenv` shows no BASH_FUNC_*); `echo a | xargs` without a PATH change runs /usr/bin/echo;
 *  - read-only ways to set PATH without forging: `for PATH in …`, `select PATH in …`, `((PATH=5))`, `getopts ab PATH`,
 *    `read PATH`, `printf -v PATH`, `set -a`, `declare -n` — all ask;
 *  - shell state outside variables/functions: `shopt -s expand_aliases; alias`, `hash -p`, `trap`, `ulimit`, `umask` ask;
 *    pushd stacks and DIRSTACK do not carry (a fresh bash per call; the launcher's spare execs a fresh bash too);
 *  - cwd moved into a symlink to outside afterwards (`cd sub`, then `sub` replaced by a link): the engine realpaths every
 *    path it judges (`cat secret.txt`, `ls`, `grep -r .` ask); acceptEdits refuses `mv`/`cp -a`/`cp -P` of a link
 *    leading outside; `git checkout` refuses to remove the shell's directory;
 *  - lower/mixed-case exports (`export Path=1 path=2`) are allowed and kept, but no program found reads them as code
 *    (`*_proxy` for http/https/ftp/all/no, `npm_config_*` any case are refused);
 *  - `BASH_FUNC_x%%` names cannot be exported; a forged function text with trailing commands is not imported by bash.
 *
 * Not a test of its own (the residue the doc admits, "the policy is a list", but wider than it reads): through hole 1
 * or an approved unbounded text, these are kept and steer a program — make's variables (`RM`, `LEX`, `YACC`,
 * `TARGET_ARCH`, `ARFLAGS`, `MAKEOVERRIDES`, and any variable a Makefile leaves undefined), `ESBUILD_BINARY_PATH`,
 * `SWC_BINARY_PATH`, `NAPI_RS_NATIVE_LIBRARY_PATH`, `PRISMA_QUERY_ENGINE_LIBRARY`, `PUPPETEER_EXECUTABLE_PATH`,
 * `CHROME_BIN`, `COVERAGE_RCFILE`, `COVERAGE_PROCESS_START`, `MPLBACKEND`, `IPYTHONDIR`, `PSQLRC`, `IRBRC`,
 * `SUDO_EDITOR`, `GH_PAGER`, `GH_EDITOR`, `CGO_CFLAGS`, `CGO_LDFLAGS`, `MAVEN_ARGS`, `JVM_OPTS`, `ANT_ARGS`,
 * `ANSIBLE_CONFIG`, `TF_CLI_CONFIG_FILE`, `HELM_PLUGINS`, `MISE_CONFIG_FILE`, `ASDF_DIR`, `PYENV_VERSION`,
 * `PYENV_ROOT`, `CONDARC`, `VIRTUAL_ENV`, `pnpm_config_*`, `socks_proxy`, `ftps_proxy`, `TEXTDOMAINDIR`.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
let pwned: string;
const runtimes: ToolRuntime[] = [];

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-red-state-')));
  proj = path.join(root, 'proj');
  pwned = path.join(root, 'pwned');
  mkdirSync(proj, { recursive: true });
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

/** Default mode, `allow` rules, and a person who approves exactly the commands `approve` names. */
async function session(options: { allow?: string[]; approve?: readonly string[]; env?: Record<string, string> } = {}): Promise<Session> {
  const asked: Session['asked'] = [];
  const rt = await createToolRuntime({
    cwd: proj,
    sessionDir: path.join(root, `.session-${runtimes.length}`),
    settings: { sources: [], object: {} },
    mode: 'default',
    rules: { allow: options.allow ?? [] },
    ...(options.env ? { env: options.env } : {}),
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

async function sh(s: Session, command: string): Promise<string> {
  const block = { type: 'tool_use', id: `toolu_red_${++ids}`, name: 'Bash', input: { command } } as ToolUseBlock;
  const { results } = await s.rt.run([block]);
  return text(results[0]!);
}

const script = (file: string, body: string): void => {
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
};

/** What the session keeps for later commands (the agent's sessionState). */
const kept = (s: Session) => contextOf(s.rt).sessionState?.bashShell;

/**
 * A read-only command that writes a complete exit record of its own (`E` + declarations + `Z`) to the shell's state
 * descriptor and points the prologue's descriptor variable at stderr, so that only its record is read (the method of
 * test/attacks/bash-state.test.ts). `bound` is text that makes the name "one the command can change".
 */
const forgeExit = (bound: string, declarations: string): string =>
  `ls >/dev/null ${bound}\nprintf 'E%s\\0Z\\0' '${declarations}' >&10; __toolgate_cwd_fd=2`;

describe('HOLE 1 (critical): the name bound is widened by text inside quotes and comments', () => {
  // state-effects.ts runs DEFAULT_ASSIGN (`${x:=…}`), LOOP_VARIABLE (`for x`) and FUNCTION_DEFINITION (`x()`) over the
  // raw command text, so a read-only command with `# ${PATH:=}` in a comment (or '${PATH:=}' in single quotes) "can
  // change" PATH, and a forged record sets it: zero approvals. Only the policy stands behind it, and the policy keeps
  // absolute PATH changes, functions with unused names and every variable it does not list.

  it('a read-only call keeps a forged PATH: a later read-only egrep runs the repository’s bin/grep', async () => {
    // The repository (cloned) carries bin/grep; nothing else is written by anyone.
    mkdirSync(path.join(proj, 'bin'));
    script(path.join(proj, 'bin', 'grep'), `touch '${pwned}'`);
    writeFileSync(path.join(proj, 'README'), 'hello\n');
    const forged = `${path.join(proj, 'bin')}:${process.env.PATH}`;
    const s = await session();
    await sh(s, forgeExit('# ${PATH:=}', `declare -x PATH="${forged}"`));
    const keptPath = kept(s)?.variables.PATH?.value;
    await sh(s, 'egrep hello README');
    // The session approves nothing: whatever ran, ran without a person.
    expect(existsSync(pwned)).toBe(false);
    // The hole itself: PATH was kept from a command that cannot change it (egrep's grep is hole 2).
    expect(keptPath).not.toBe(forged);
  });

  it('the same, with code in the value: a forged RM turns a trusted Makefile’s `make clean` (Bash(make:*)) into code', async () => {
    // make imports every environment variable over its built-in defaults; RM is not on the policy's list. No file of
    // the attacker's is needed: the value is the code.
    writeFileSync(path.join(proj, 'Makefile'), 'clean:\n\t$(RM) build.o\n');
    const s = await session({ allow: ['Bash(make:*)'] });
    await sh(s, forgeExit("; echo '${RM:=}'", `declare -x RM="touch ${pwned}; rm -f"`));
    const keptRm = kept(s)?.variables.RM;
    await sh(s, 'make clean');
    // The session approves nothing: the forging call was read-only, `make clean` the rule's.
    expect(existsSync(pwned)).toBe(false);
    expect(keptRm).toBeUndefined();
  });

  it('a function named only in a comment is kept with a forged body (medium: the review still asks when it is named)', async () => {
    const s = await session();
    // A complete set: the real exit declarations, then the function records (`F` name, newline, `declare -f` text).
    const fn = `Fgreet\\ngreet () \\n{ \\n    touch ${pwned}\\n}\\0`;
    const command = `ls >/dev/null # greet()\n{ printf E; declare -px; printf '\\0f\\0${fn}Z\\0'; } >&10; __toolgate_cwd_fd=2`;
    await sh(s, command);
    // The session approves nothing: the call was read-only.
    expect(Object.keys(kept(s)?.functions ?? {})).not.toContain('greet');
  });
});

describe('HOLE 2 (critical): the review looks only at the programs the command names, not what they run', () => {
  // state-review.ts compares the command's own program (and a wrapper's) under the persisted PATH and the runtime's.
  // Programs those run look their programs up on the persisted PATH too: egrep/fgrep are `exec grep -E`, xargs with no
  // command runs `echo`, npm/npx and every node CLI are `#!/usr/bin/env node`, pyenv shims `#!/usr/bin/env bash`. The
  // venv activation the doc calls benign (approved for what it shows) is enough: docs/security.md's residue says "the
  // engine asks for any command whose program it changes" — it does not for these.

  it('after an approved `source .venv/bin/activate`, read-only egrep and `echo x | xargs` run the venv’s grep and echo', async () => {
    const venv = path.join(proj, '.venv');
    execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
    // What the cloned repository (or a pip-installed console script) put in the venv's bin.
    script(path.join(venv, 'bin', 'grep'), `echo grep >> '${pwned}'`);
    script(path.join(venv, 'bin', 'echo'), `echo echo >> '${pwned}'`);
    writeFileSync(path.join(proj, 'README'), 'hello\n');
    const s = await session({ approve: ['source .venv/bin/activate'] });
    await sh(s, 'source .venv/bin/activate');
    await sh(s, 'egrep hello README');
    await sh(s, 'echo x | xargs');
    expect(existsSync(pwned)).toBe(false);
    // What should have happened: each asks, as `python3` does.
    expect(s.asked.map((a) => a.command)).toEqual(['source .venv/bin/activate', 'egrep hello README', 'echo x | xargs']);
  });
});

describe('HOLE 3 (critical): an unset PATH is kept, and bash’s default PATH ends in `.`', () => {
  // session-env.ts checks a PATH change for relative or empty entries only when PATH has a value
  // (`name === 'PATH' && value !== null`); an unset is kept. The next bash then has no PATH and uses its compiled-in
  // default, /usr/local/bin:…:/sbin:. — the current directory last. The review sees "no PATH" and, for a program
  // found nowhere before either, finds no difference: a read-only program that is not installed runs ./<name> from
  // the project.

  it('after an approved `source .venv/bin/activate` that unsets PATH, a read-only program not installed runs ./<name>', async () => {
    const defaultPath = execFileSync('/usr/bin/env', ['-i', 'bash', '-c', 'printf %s "$PATH"'], { encoding: 'utf8' });
    expect(defaultPath.split(':')).toContain('.');
    const name = Object.keys(READ_ONLY_SPECS).find(
      (n) => /^[a-z]+$/.test(n) && findProgram(n, process.env.PATH, proj) === undefined && findProgram(n, defaultPath.replace(/:\.$/, ''), proj) === undefined,
    );
    // Written reason for the guard: every read-only program the engine knows is installed here.
    if (name === undefined) return;
    mkdirSync(path.join(proj, '.venv', 'bin'), { recursive: true });
    writeFileSync(path.join(proj, '.venv', 'bin', 'activate'), 'export VIRTUAL_ENV="$PWD/.venv"\nunset PATH\n');
    script(path.join(proj, name), `touch '${pwned}'`); // the cloned repository's file
    const s = await session({ approve: ['source .venv/bin/activate'] });
    await sh(s, 'source .venv/bin/activate');
    await sh(s, name);
    // Only the activation was approved: `<name>` ran as read-only (a fix may refuse the unset or ask here).
    expect(existsSync(pwned)).toBe(false);
  });
});

describe('HOLE 4 (critical): LC_ALL is kept as harmless, and a multibyte locale changes how bash reads the next command', () => {
  // state-policy.ts keeps the names the analyser strips as harmless (`LC_*`, `LANG`). In a BIG5 (or GBK, GB18030,
  // BIG5-HKSCS) locale, bytes 0xA1–0xFE followed by `\` are one character: the backslash is no escape. `थ` is
  // E0 A4 A5 in UTF-8, so `"थ\"` ends its string there for bash while the engine (UTF-8) reads `\"` as an escaped
  // quote. A read-only `export LC_ALL=zh_TW.BIG5`, kept, makes a later read-only `echo "…"` run `touch`: zero
  // approvals. The locale must exist on the machine (Debian's locales-all, Fedora's glibc-all-langpacks; here it is
  // built with localedef and given to the runtime through LOCPATH, as installed locales are).

  it('a read-only export of LC_ALL, then a read-only echo whose quoted text bash reads as `; touch …`', async () => {
    const locales = path.join(root, 'locales');
    mkdirSync(locales);
    try {
      execFileSync('localedef', ['-f', 'BIG5', '-i', 'zh_TW', path.join(locales, 'zh_TW.BIG5')], { stdio: 'ignore' });
    } catch {
      // localedef may warn and still write the locale; only its absence stops the case.
    }
    // Written reason for the guard: no localedef or no BIG5 charmap on this machine, so no BIG5 locale to select.
    if (!existsSync(path.join(locales, 'zh_TW.BIG5', 'LC_CTYPE'))) return;
    const s = await session({ env: { ...(process.env as Record<string, string>), LOCPATH: locales } });
    const payload = `echo "\u0925\\" ; touch ${pwned} ; echo \u0925\\""`;
    // Control: as the engine reads it (and bash in the runtime's locale), the payload is one echo.
    expect(await sh(s, payload)).toContain('touch');
    expect(existsSync(pwned)).toBe(false);
    await sh(s, 'export LC_ALL=zh_TW.BIG5');
    await sh(s, payload);
    // The session approves nothing: both calls ran as read-only.
    expect(existsSync(pwned)).toBe(false);
  });

  it('within one call: a BIG5 locale assigned on one line, the payload on the next', async () => {
    const locales = path.join(root, 'locales');
    mkdirSync(locales);
    try {
      execFileSync('localedef', ['-f', 'BIG5', '-i', 'zh_TW', path.join(locales, 'zh_TW.BIG5')], { stdio: 'ignore' });
    } catch {
      // localedef may warn and still write the locale; only its absence stops the case.
    }
    // Written reason for the guard: no localedef or no BIG5 charmap on this machine, so no BIG5 locale to select.
    if (!existsSync(path.join(locales, 'zh_TW.BIG5', 'LC_CTYPE'))) return;
    const s = await session({ env: { ...(process.env as Record<string, string>), LOCPATH: locales } });
    // Bash switches as soon as the assignment runs and reads the next line in BIG5: three commands, not one echo.
    const command = `LC_ALL=zh_TW.BIG5\necho "\u0925\\" ; touch ${pwned} ; echo \u0925\\""`;
    await sh(s, command);
    expect(existsSync(pwned)).toBe(false);
    expect(s.asked.map((a) => a.command)).toEqual([command]);
    expect(s.asked[0]!.message).toContain('locale');
  });
});
