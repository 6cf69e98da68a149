import { beforeAll, describe, expect, it } from 'vitest';
import { loadBashParser } from '../../permissions/bash/index.js';
import { parseShellStateRecords } from './session-env.js';
import { stateEffects, type NameBound } from './state-effects.js';
import { refusedEntry, refusedFunctionName, refusedPath, refusedVariable } from './state-policy.js';

beforeAll(async () => {
  await loadBashParser();
});

const names = (b: NameBound): string => (b === 'any' ? 'any' : [...b].sort().join(','));

describe('what a command’s text can change (state-effects.ts)', () => {
  it('names only what the text sets; nothing for read-only commands, whatever they write', () => {
    const cases: [string, string, string][] = [
      ['cat x >&10', '', ''],
      ['git status', '', ''],
      ['npm test -- $X', '', ''],
      ['command -v eval; type source; echo eval', '', ''],
      ['export foo=1 B; cat F >&10', 'B,foo', ''],
      ['command export A=1', 'A', ''],
      ['export PATH=/p/bin:$PATH', 'PATH', ''],
      ['unset -f f; unset X', 'X', 'X,f'],
      ['read -r a b', 'a,b', ''],
      ['printf -v foo %s x', 'foo', ''],
      ['echo ${foo:=1}', 'foo', ''],
      ['for i in 1 2; do :; done', 'i', ''],
      ['f() { :; }; function g { :; }', '', 'f,g'],
      ['declare -fx g; export -n h', 'h', 'g'],
      ['source .venv/bin/activate', 'any', 'any'],
      ['. x', 'any', 'any'],
      ['eval "$x"', 'any', 'any'],
      ['exec 3>&-', 'any', 'any'],
      ['$cmd A', 'any', 'any'],
      // Quoted text and comments name nothing: only the parsed tree does.
      ['ls # ${PATH:=} for X in; greet()', '', ''],
      ["echo '${RM:=}' 'for Y in' 'g()'", '', ''],
      ['echo "${z:=1}"', 'z', ''],
      ['cat <<EOF\n${h:=1}\nEOF', 'h', ''],
      ["cat <<'EOF'\n${h:=1}\nEOF", '', ''],
      // An assignment before an ordinary command is that command's alone; before a special builtin it may stay.
      ['TZ=UTC date; A=1 ls', '', ''],
      ['B=1 :', 'B', ''],
      // A child shell's commands change nothing here.
      ["bash -c 'export C=1; f() { :; }'", '', ''],
    ];
    for (const [command, vars, fns] of cases) {
      const e = stateEffects(command, new Set(), '/proj', '/home/u');
      expect([names(e.variables), names(e.functions)], command).toEqual([vars, fns]);
    }
  });

  it('which names the text exports, and which subcommand names them', () => {
    const e = stateEffects('export a=1; b=2; declare -x c; declare +x d; export -n e; for f in 1; do :; done', new Set(), '/proj', undefined);
    expect(names(e.exports)).toBe('a,c,d,e');
    expect(names(e.loose)).toBe('f');
    // (`export a=1` is two subcommands to the analyser: the declaration and its assignment.)
    expect([...e.setters].map(([sub, n]) => `${sub.text}:${[...n].join(',')}`)).toEqual(['a=1:a', 'export a=1:a', 'b=2:b', 'declare -x c:c', 'declare +x d:d', 'export -n e:e']);
    expect(stateEffects('set -a; x=1', new Set(), '/proj', undefined).exports).toBe('any');
    expect(stateEffects('set -o allexport', new Set(), '/proj', undefined).exports).toBe('any');
    expect(names(stateEffects('set -e; x=1', new Set(), '/proj', undefined).exports)).toBe('');
  });

  it('a command that names a function an earlier command left is unbounded (the review asks for it)', () => {
    expect(stateEffects('greet', new Set(['greet']), '/proj', undefined).variables).toBe('any');
    expect(stateEffects('cat greet', new Set(['greet']), '/proj', undefined).variables).toBe('any');
    expect(names(stateEffects('cat hello', new Set(['greet']), '/proj', undefined).variables)).toBe('');
  });

  it('the directories its cds can lead to', () => {
    expect(stateEffects('ls', new Set(), '/proj', undefined).cwd).toEqual({ kind: 'none' });
    expect(stateEffects('cd src && ls', new Set(), '/proj', undefined).cwd).toEqual({ kind: 'dirs', dirs: ['/proj/src'] });
    expect(stateEffects('cd a; ls', new Set(), '/proj', undefined).cwd).toEqual({ kind: 'dirs', dirs: ['/proj', '/proj/a'] });
    expect(stateEffects('cd "$x"', new Set(), '/proj', undefined).cwd).toEqual({ kind: 'any' });
    expect(stateEffects('popd', new Set(), '/proj', undefined).cwd).toEqual({ kind: 'any' });
  });
});

describe('the policy (state-policy.ts)', () => {
  it('refuses variables that make programs run other code or read elsewhere; keeps ordinary and harmless ones', () => {
    for (const name of ['NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PERL5OPT', 'RUBYOPT', 'JAVA_TOOL_OPTIONS', 'LD_PRELOAD', 'BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'SHELLOPTS', 'PS4', 'IFS', 'PAGER', 'LESSOPEN', 'EDITOR', 'npm_config_script_shell', 'NPM_CONFIG_USERCONFIG', 'http_proxy', 'HTTPS_PROXY', 'HOME', 'XDG_CONFIG_HOME', 'RIPGREP_CONFIG_PATH', 'TAR_OPTIONS', 'GLIBC_TUNABLES', 'MAKEFLAGS', 'CC']) {
      expect(refusedVariable(name), name).toBe('steers');
    }
    for (const name of ['GIT_CONFIG_COUNT', 'GIT_CONFIG_KEY_0', 'GIT_DIR', 'GIT_SSH_COMMAND', 'GIT_TERMINAL_PROMPT']) expect(refusedVariable(name), name).toBe('git');
    for (const name of ['PWD', 'SHLVL', '_', '__toolgate_cwd_fd', '__tg_s']) expect(refusedVariable(name), name).toBe('internal');
    for (const name of ['FOO', 'foo', 'VIRTUAL_ENV', 'NODE_ENV', 'PYTHONUNBUFFERED', 'LC_ALL', 'CI', 'PATH']) expect(refusedVariable(name), name).toBeUndefined();
  });

  it('refuses an unset or empty PATH, and one with a relative or empty entry anywhere (the runtime’s own are not excused)', () => {
    expect(refusedPath('/proj/.venv/bin:/usr/bin')).toBeUndefined();
    expect(refusedPath('bin:/usr/bin')).toContain('relative PATH entry bin');
    expect(refusedPath(':/usr/bin')).toContain('empty');
    expect(refusedPath('/usr/bin:')).toContain('empty');
    expect(refusedPath('')).toContain('empty PATH');
    expect(refusedPath(null)).toContain('unset PATH');
    // Before, an entry the runtime's PATH had already was excused; the kept PATH is the later command's whole PATH.
    expect(refusedPath('/opt/x:.:/usr/bin')).toContain('relative PATH entry .');
  });

  it('keeps a locale variable only as C, POSIX or UTF-8', () => {
    for (const value of ['C', 'POSIX', 'C.UTF-8', 'en_US.utf8', 'sr_RS.UTF-8@latin', '']) expect(refusedVariable('LC_ALL', value), value).toBeUndefined();
    for (const [name, value] of [['LC_ALL', 'zh_TW.BIG5'], ['LC_CTYPE', 'zh_CN.GBK'], ['LANG', 'zh_CN.GB18030'], ['LANGUAGE', 'ja_JP.eucJP'], ['LC_ALL', 'C.UTF-8 x']]) {
      expect(refusedVariable(name!, value), value).toBe('locale');
      expect(refusedEntry(name!, value!), value).toBe('locale');
    }
    expect(refusedVariable('LC_ALL', null)).toBeUndefined();
    expect(refusedEntry('LANG', 'en_US.UTF-8')).toBeUndefined();
    expect(refusedEntry('PATH', null)).toContain('unset');
  });

  it('refuses functions named like builtins, keywords, hooks or with names outside bash’s plain ones', () => {
    for (const name of ['cd', 'exec', 'trap', 'builtin', '[', 'if', 'command_not_found_handle', '__toolgate_x', 'a b', 'x/y']) {
      expect(refusedFunctionName(name), name).toBeDefined();
    }
    expect(refusedFunctionName('greet')).toBeUndefined();
  });
});

describe('records written twice', () => {
  it('are not used at all', () => {
    const one = 'C/tmp\n\0Sdeclare -x A="1"\0R\0Edeclare -x A="2"\0Z\0';
    expect(parseShellStateRecords(one).capture?.exit.get('A')).toBe('2');
    expect(parseShellStateRecords(`${one}Edeclare -x A="3"\0`)).toEqual({ malformed: true });
    expect(parseShellStateRecords(`C/etc\n\0${one}`)).toEqual({ malformed: true });
    expect(parseShellStateRecords('f\0Fg\ng () \n{ :; }\0Fg\ng () \n{ :; }\0')).toEqual({ malformed: true });
  });
});
