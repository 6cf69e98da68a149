import { describe, expect, it } from 'vitest';
import { interpretExitCode } from './exit-code.js';

describe('interpretExitCode', () => {
  it('treats exit 1 of the search and compare commands as an answer', () => {
    for (const cmd of ['grep x f', 'rg x', 'egrep x f', 'fgrep x f', 'find . -name x', 'diff a b', 'test -f x', '[ -f x ]']) {
      expect(interpretExitCode(cmd, 1).isError, cmd).toBe(false);
    }
    expect(interpretExitCode('git diff --exit-code', 1)).toEqual({ isError: false, message: 'Files differ' });
    expect(interpretExitCode('git -C repo grep foo', 1)).toEqual({ isError: false, message: 'No matches found' });
  });

  it('decides by the last command of a line, through wrappers and assignments', () => {
    expect(interpretExitCode('cd src && LC_ALL=C timeout 5 grep -r foo .', 1).isError).toBe(false);
    expect(interpretExitCode('/usr/bin/grep foo bar', 1).isError).toBe(false);
    expect(interpretExitCode('grep foo bar && make', 1).isError).toBe(true);
    expect(interpretExitCode('git commit -m x', 1).isError).toBe(true);
  });

  it('uses the parsed last argv when one is given', () => {
    expect(interpretExitCode('whatever', 1, ['rg', 'x']).isError).toBe(false);
    expect(interpretExitCode('grep x', 1, ['make']).isError).toBe(true);
  });

  it('keeps other codes as failures and 0 as success', () => {
    expect(interpretExitCode('grep x f', 2).isError).toBe(true);
    expect(interpretExitCode('false', 0).isError).toBe(false);
    expect(interpretExitCode('', 1).isError).toBe(true);
  });
});
