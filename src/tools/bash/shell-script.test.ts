/**
 * `mayChangeEnvironment` decides when a command's exported variables need not be read back. Its "no" must be true of
 * real bash: each command it passes is run with the variables read before and after, and nothing carried may differ;
 * each trick it must catch (quotes inside a builtin's name, brace and glob expansion to a builtin, arithmetic that
 * assigns without `=`) is shown to really change a variable in bash.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildShellScript, mayChangeEnvironment } from './shell-script.js';
import { parseShellStateRecords } from './session-env.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-shell-script-'));
  // A file named like a builtin: `e*port` in this folder expands to `export`.
  writeFileSync(path.join(dir, 'export'), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = (): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: dir, N: '1', V: 'kept' });

/** The exported variables that differ after `command` (PWD, OLDPWD, SHLVL and `_` are never carried). */
function changedBy(command: string): string[] {
  const run = spawnSync('bash', ['-c', buildShellScript(command, { capture: true })], { cwd: dir, env: env(), stdio: ['ignore', 'ignore', 'ignore', 'pipe'], encoding: 'latin1' });
  const capture = parseShellStateRecords(String(run.output[3])).capture!;
  expect(capture, command).toBeDefined();
  const names = new Set([...capture.start.keys(), ...capture.exit.keys()]);
  return [...names].filter((n) => !['PWD', 'OLDPWD', 'SHLVL', '_'].includes(n) && capture.start.get(n) !== capture.exit.get(n));
}

describe('mayChangeEnvironment', () => {
  const passed = [
    'echo hi',
    'git --version',
    'ls -la | head -5',
    'cd / && pwd',
    'mkdir -p out && touch out/x',
    'true && false || echo "no luck"',
    "cat /dev/null > 'empty file'",
    'test -d out; echo done\nls out',
    'git set-upstream 2>/dev/null; exit 0',
  ];

  it('passes commands that cannot change a variable, and bash agrees: nothing differs after them', () => {
    for (const command of passed) {
      expect(mayChangeEnvironment(command, env()), command).toBe(false);
      expect(changedBy(command), command).toEqual([]);
    }
  });

  it('catches what changes a variable without looking like it, and bash shows each does', () => {
    const tricks: [string, string][] = [
      // `export -n`: V stays a variable of the shell but is no longer exported.
      [`ex'p'ort -n V`, 'V'],
      ['\\unset V', 'V'],
      ['ex\\\nport -n V', 'V'],
      ['{export,-n,V}', 'V'],
      ['e*port -n V', 'V'],
      ['((N++))', 'N'],
      ['[[ N++ -eq 1 ]]', 'N'],
      ['read V <<< new', 'V'],
      ['printf -v V x', 'V'],
      ['for V in a; do :; done', 'V'],
      ['let N++', 'N'],
      ['command export -n V', 'V'],
      ['builtin unset V', 'V'],
      ['"$(echo unset)" V', 'V'],
    ];
    for (const [command, variable] of tricks) {
      expect(mayChangeEnvironment(command, env()), command).toBe(true);
      expect(changedBy(command), command).toContain(variable);
    }
  });

  it('reads back whenever the shell imports functions, or the command may define one', () => {
    expect(mayChangeEnvironment('echo hi', { ...env(), 'BASH_FUNC_f%%': '() { export NEW=1; }' })).toBe(true);
    expect(mayChangeEnvironment('f () (echo)', env())).toBe(true);
    for (const command of ['export X', 'X=1 make', 'echo $HOME', '. ./venv/bin/activate', 'source x', 'eval x', 'set -a', 'wait -p V', 'mapfile V < f', 'getopts a V', 'declare -x V', 'typeset V', 'local V', 'readonly V', 'trap x EXIT', 'exec 3>f', 'enable -n echo', 'select V in a; do :; done', 'echo `x`']) {
      expect(mayChangeEnvironment(command, env()), command).toBe(true);
    }
  });
});
