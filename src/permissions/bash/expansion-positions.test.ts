/**
 * The class "parameter expansion and command substitution make the words unknowable" (issue 21): a command with an
 * expansion is auto-allowed as read-only only when every expanded position is harmless whatever the value. Members
 * of both sides, through the real analysis (decision harness: no rules, so only read-only classification allows).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { check } from './test-helpers/decision-harness.js';

const readOnly = (command: string) => {
  const r = check(command);
  return r.behavior === 'allow' && r.decisionReason?.layer === 'readOnly';
};

describe('expansions where any value is harmless: still read-only', () => {
  it.each([
    'echo $HOME',
    'echo "$X" $# $1 "$@"',
    'echo $(ls)',
    "printf '%s\\n' $X",
    'printf -- "$X"',
    '[ -n "$X" ]',
    '[ "$A" = "$B" ]',
    '[ ! -e "$F" ]',
    'test -f "$F"',
    'test "$X"',
    '[[ $X == y ]]',
    'x=$(pwd)',
    'true $X',
  ])('%j', (command) => {
    expect(readOnly(command)).toBe(true);
  });
});

describe('expansions that could change what runs or what is read: asked', () => {
  it.each([
    // The words are unknowable: what is read, which command runs.
    'cat $F',
    'ls $(cmd)',
    '${X:-rm} file',
    '$CMD args',
    '"$CMD" -la',
    'command $X',
    'exec $X',
    'env $X',
    'xargs $X',
    'grep $P a.txt',
    'cat < $F',
    'cd $X && cat a.txt',
    'echo $X | sh',
    // printf's options come before its format: `-v NAME` sets a variable later commands run with.
    'printf "$X"',
    'printf $X',
    'printf "$X" y',
    // test/[: an unquoted expansion splits into operators, a quoted one must not sit where an operator goes.
    'test $X',
    '[ $X ]',
    '[ -n $X ]',
    '[ -f $F ]',
    '[ "$A" = x -o "$B" = y ]',
    '[ -v "$X" ]',
  ])('%j', (command) => {
    expect(readOnly(command)).toBe(false);
    expect(check(command).behavior).not.toBe('allow');
  });

  it('the danger is real: bash runs code from `[ -v "$x" ]` and `printf -v` sets PATH', () => {
    const out = spawnSync('bash', ['-c', `x='a[$(echo RAN >&2)]'; echo set; [ -v "$x" ]; printf -v PATH "%s" changed; echo "$PATH"`], { encoding: 'utf8', env: { ...process.env, SHLVL: '1' } });
    // Nothing ran when x was set (single quotes); `[ -v` evaluated the subscript.
    expect(out.stderr).toContain('RAN');
    expect(out.stdout.trim().split('\n')).toEqual(['set', 'changed']);
  });
});
