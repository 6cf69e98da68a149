import { execFileSync, spawnSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser } from '../../permissions/bash/index.js';
import { stateEffects } from './state-effects.js';
import { buildShellScript, mayChangeFunctions } from './shell-script.js';
import { applyShellState, mergeShellState, parseShellStateRecords, shellDelta } from './session-env.js';
import type { ToolSettings } from '../../tool/tool-use-context.js';

const settings: ToolSettings = {};
const context = { options: { settings } } as Parameters<typeof shellDelta>[2]['context'];

/** The records real bash writes for `command` through its state descriptor (fd 3). */
function recordsOf(command: string, env: NodeJS.ProcessEnv): string {
  const run = spawnSync('bash', ['-c', buildShellScript(command, { capture: true, captureFunctions: true })], { env, stdio: ['ignore', 'ignore', 'ignore', 'pipe'], encoding: 'latin1' });
  return String(run.output[3]);
}

beforeAll(async () => {
  await loadBashParser();
});

describe('the shell state records', () => {
  it('are read from what bash really writes: cwd, variables before and after, functions', () => {
    const command = 'export A="x=y"; unset B; f() { echo "a\nb"; }; cd /';
    const text = recordsOf(command, { PATH: process.env.PATH, B: '1' });
    const { cwd, capture } = parseShellStateRecords(text);
    expect(cwd).toBe('/');
    expect(capture?.start.get('B')).toBe('1');
    expect(capture?.exit.has('B')).toBe(false);
    expect(capture?.exit.get('A')).toBe('x=y');
    expect(capture?.functions?.get('f')).toMatch(/^f \(\) \n\{ \n/);
    const effects = stateEffects(command, new Set(), '/', undefined);
    const delta = shellDelta(capture!, { functions: new Map(), withheld: 0 }, { context, sandboxed: false, cwd: '/', effects, startEnv: { PATH: process.env.PATH, B: '1' } }).delta!;
    expect([...delta.variables]).toEqual([
      ['A', 'x=y'],
      ['B', null],
    ]);
    // The function as bash imports it from the environment, and it works there.
    const state = mergeShellState(undefined, delta);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, B: '1' };
    const applied = applyShellState(env, state, false, settings);
    expect(env.A).toBe('x=y');
    expect('B' in env).toBe(false);
    expect(execFileSync('bash', ['-c', buildShellScript('f', { importedFunctions: [...applied.functions.keys()] })], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'ignore'] })).toBe('a\nb\n');
  });

  it('functions are read back only for commands that may change them', () => {
    for (const yes of ['f() { :; }', 'function g { :; }', 'source x', '. ./venv/bin/activate', 'eval "$(x)"', 'unset -f f', 'a; f ( ) { :; }']) {
      expect(mayChangeFunctions(yes), yes).toBe(true);
    }
    for (const no of ['ls -la', 'npm test', 'cat ./a.txt', 'echo 3.5', 'git log --oneline']) expect(mayChangeFunctions(no), no).toBe(false);
    expect(parseShellStateRecords(recordsOf('true', { PATH: process.env.PATH })).capture?.functions).toBeDefined();
    const without = spawnSync('bash', ['-c', buildShellScript('g() { :; }', { capture: true })], { stdio: ['ignore', 'ignore', 'ignore', 'pipe'], encoding: 'latin1' });
    expect(parseShellStateRecords(String(without.output[3])).capture?.functions).toBeUndefined();
  });

  it("reads back every value bash quotes in `declare -px`, byte for byte; what Node cannot pass on is left out", () => {
    const values: Record<string, string> = {
      NL: 'two\nlines',
      QUOTES: `a "b" 'c' $d \`e\` \\f \\`,
      TAB: 'x\ty\x01z\x1b',
      UNICODE: 'é★ 日本',
      EMPTY: '',
      EQ: 'a=b==c',
    };
    const script = 'export BAD=$(printf "\\377"); declare -rx RO=1; declare -ix INT=3; declare -ax ARR=(1 2); export NOVALUE';
    const { capture } = parseShellStateRecords(recordsOf(script, { PATH: process.env.PATH, ...values }));
    for (const [name, value] of Object.entries(values)) expect(capture?.exit.get(name), name).toBe(value);
    expect(capture?.exit.get('RO')).toBe('1');
    expect(capture?.exit.get('INT')).toBe('3');
    for (const absent of ['BAD', 'ARR', 'NOVALUE']) expect(capture?.exit.has(absent), absent).toBe(false);
  });

  it('a command that changes no variable reads the same before and after; one that does, differs by that one', () => {
    const env = { PATH: process.env.PATH, KEEP: 'é', OTHER: '1' };
    const same = parseShellStateRecords(recordsOf('true', env)).capture!;
    expect([...same.exit]).toEqual([...same.start]);
    expect(same.exit.get('KEEP')).toBe('é');
    const changed = parseShellStateRecords(recordsOf('export OTHER=2', env)).capture!;
    expect(changed.start.get('OTHER')).toBe('1');
    expect(changed.exit.get('OTHER')).toBe('2');
    expect(changed.exit.get('KEEP')).toBe('é');
  });

  it('a dump cut short or never finished is no capture; foreign records are ignored', () => {
    expect(parseShellStateRecords('C/tmp\n\0').capture).toBeUndefined();
    const S = 'Sdeclare -x A="1"\0';
    expect(parseShellStateRecords(`${S}R\0C/tmp\n\0Edeclare -x A="2"\0`).capture).toBeUndefined(); // no Z: the trap did not finish
    const { cwd, capture } = parseShellStateRecords(`${S}R\0junk\0C/tmp\n\0Edeclare -x A="2"\ndeclare -x B=oops\nrubbish\0Z\0Fpartial`);
    expect(cwd).toBe('/tmp');
    expect(capture?.exit.get('A')).toBe('2');
    expect(capture?.functions).toBeUndefined();
  });

  it('merging makes a new frozen state and leaves the old one as it was', () => {
    const one = mergeShellState(undefined, { variables: new Map([['A', '1']]), functions: new Map(), sandboxed: false });
    const two = mergeShellState(one, { variables: new Map([['A', null]]), functions: new Map([['f', '() { :; }']]), sandboxed: true });
    expect(one.variables.A?.value).toBe('1');
    expect(two.variables.A).toEqual({ value: null, sandboxed: true });
    expect(Object.isFrozen(two) && Object.isFrozen(two.variables) && Object.isFrozen(two.functions)).toBe(true);
    // A command outside the sandbox does not get what sandboxed ones left.
    const env: NodeJS.ProcessEnv = { A: 'base' };
    expect(applyShellState(env, two, false, settings)).toMatchObject({ withheld: 2 });
    expect(env).toEqual({ A: 'base' });
  });
});
