import { describe, expect, it } from 'vitest';
import type { BashPermissionDeps } from './types.js';
import { check, cwd, deps, extra, none, run } from './test-helpers/decision-harness.js';

describe('benign commands pass', () => {
  run([
    ['git status', none, 'allow', 'readOnly'],
    ['git status --short', none, 'allow'],
    ['git log --oneline -n 5', none, 'allow'],
    ['git log -p --stat -- src', none, 'allow'],
    ['git diff HEAD~1 -- src', none, 'allow'],
    ['git diff | grep x', none, 'allow'],
    ['git diff --stat', none, 'allow'],
    ['git show HEAD:package.json', none, 'allow'],
    ['git branch', none, 'allow'],
    ['git branch -a -v', none, 'allow'],
    ["git branch --list 'feat*'", none, 'allow'],
    ['git rev-parse --show-toplevel', none, 'allow'],
    ['git ls-files', none, 'allow'],
    ['git blame src/a.ts', none, 'allow'],
    ['git --no-pager log -1', none, 'allow'],
    ['git stash list', none, 'allow'],
    ['git remote -v', none, 'allow'],
    ['git config --get user.name', none, 'allow'],
    ['git tag', none, 'allow'],
    ['ls -la src', none, 'allow', 'readOnly'],
    ['ls', none, 'allow'],
    ['pwd', none, 'allow'],
    ['cat package.json | jq .name', none, 'allow'],
    ["jq -r '.scripts | keys[]' package.json", none, 'allow'],
    ['rg foo src | head', none, 'allow'],
    ["rg -n 'TODO' src -g '*.ts'", none, 'allow'],
    ['rg -l foo', none, 'allow'],
    ['grep -rn foo src', none, 'allow'],
    ['grep -e /etc src', none, 'allow'],
    ["find . -name '*.ts' -type f", none, 'allow'],
    ['find src -maxdepth 2 -newer package.json', none, 'allow'],
    ['wc -l src/*.ts', none, 'allow'],
    ['head -n 20 package.json', none, 'allow'],
    ['tail -5 package.json', none, 'allow'],
    ['sort package.json | uniq -c | sort -rn', none, 'allow'],
    ['cut -d: -f1 package.json', none, 'allow'],
    ['echo hello', none, 'allow'],
    ['echo "$HOME"', none, 'allow'],
    ["printf '%s\\n' a b", none, 'allow'],
    ['cd src && ls', none, 'allow'],
    ['cd src && cat package.json', none, 'allow'],
    ['diff package.json src/x', none, 'allow'],
    ['stat package.json && file package.json', none, 'allow'],
    ['du -sh .', none, 'allow'],
    ['which node; type git; command -v node', none, 'allow'],
    ['date +%s', none, 'allow'],
    ['whoami && uname -a && hostname', none, 'allow'],
    ['env', none, 'allow'],
    ["sed -n '1,20p' package.json", none, 'allow'],
    ["sed 's/a/b/g; /x/d' package.json", none, 'allow'],
    ["awk '{print $1}' package.json", none, 'allow'],
    ["awk -F: '$3 > 100 {print $1}' package.json", none, 'allow'],
    ['basename /a/b && dirname x && realpath .', none, 'allow'],
    ['tree src -L 2', none, 'allow'],
    ['(cd src && ls)', none, 'allow'],
    ['{ ls; pwd; }', none, 'allow'],
    ['if [ -f package.json ]; then cat package.json; fi', none, 'allow'],
    ['for f in src/*; do echo "$f"; done', none, 'allow'],
    ['ls 2>/dev/null', none, 'allow'],
    ['ls 2>&1 | head', none, 'allow'],
    ['ls >&2', none, 'allow'],
    ['ls src extra 2>/dev/null || true', none, 'allow'],
    [`ls ${extra}`, none, 'allow'],
    ['set -euo pipefail; git status', none, 'allow'],
    ["sh -c 'git status && ls'", none, 'allow'],
    ["bash <<'EOF'\ngit log -1\nEOF", none, 'allow'],
    ['git log --format="%H %s" | head -3', none, 'allow'],
    ['echo hi > out.txt', none, 'allow'],
    ['ls > src/listing.txt', none, 'allow'],
    ['x=1; echo $x', none, 'allow'],
    ['export foo=bar && echo ok', none, 'allow'],
    ['NODE_ENV=test && export NODE_ENV && git status', none, 'allow'],
    ['timeout 5 git status', none, 'allow'],
    ['git log | grep -c fix', none, 'allow'],
  ]);
});

describe('allow rules (golden cases from the documented rule syntax)', () => {
  run([
    ['npm test', { allow: ['npm test'] }, 'allow', 'allowRule'],
    ['npm test --watch', { allow: ['npm test'] }, 'passthrough'],
    ['npm run build', { allow: ['npm run build'] }, 'allow'],
    ['npm run test', { allow: ['npm run test:*'] }, 'allow'],
    ['npm run test -- --coverage', { allow: ['npm run test:*'] }, 'allow'],
    ['npm run testx', { allow: ['npm run test:*'] }, 'passthrough'],
    ['git commit -m "msg"', { allow: ['git commit *'] }, 'allow'],
    ['git commit', { allow: ['git commit *'] }, 'allow'],
    ['git commitx', { allow: ['git commit *'] }, 'passthrough'],
    ['git "status"', { allow: ['git status'] }, 'allow'],
    ['ls -la', { allow: ['ls *'] }, 'allow'],
    ['lsof', { allow: ['ls *'] }, 'passthrough'],
    ['lsof', { allow: ['ls*'] }, 'allow'],
    ['make build', { allow: ['make:*'] }, 'allow'],
    ['npm test', { allow: ['Bash'] }, 'allow'],
    ['npm test', { allow: ['*'] }, 'allow'],
    ['docker run --rm x', { allow: ['docker run * --rm *'] }, 'passthrough'],
    ['git status && npm test', { allow: ['npm test'] }, 'allow', 'allowRule'],
    ['npm test && npm run build', { allow: ['npm test', 'npm run build'] }, 'allow'],
    ['timeout 60 npm test', { allow: ['npm test'] }, 'allow'],
    ['nice -n 5 npm test', { allow: ['npm test'] }, 'allow'],
    ['nohup npm test', { allow: ['npm test'] }, 'allow'],
    ['time npm test', { allow: ['npm test'] }, 'allow'],
    ['stdbuf -oL npm test', { allow: ['npm test'] }, 'allow'],
    ['command npm test', { allow: ['npm test'] }, 'allow'],
    ['NODE_ENV=test npm test', { allow: ['npm test'] }, 'allow'],
    ['find . -name x | xargs npm test', { allow: ['npm test'] }, 'allow'],
    ['npx jest', { allow: ['jest:*'] }, 'passthrough'],
    ['docker exec c npm test', { allow: ['npm test'] }, 'passthrough'],
    ['devbox run npm test', { allow: ['npm test'] }, 'passthrough'],
    ['sudo npm test', { allow: ['npm test'] }, 'passthrough'],
    ['env npm test', { allow: ['npm test'] }, 'passthrough'],
    ['xargs -n1 npm test', { allow: ['npm test'] }, 'passthrough'],
    ['LD_PRELOAD=/tmp/x.so npm test', { allow: ['npm test'] }, 'passthrough'],
    ['PATH=/tmp/evil:$PATH npm test', { allow: ['npm test'] }, 'passthrough'],
    ['NODE_OPTIONS=--require=./x.js npm test', { allow: ['npm test'] }, 'passthrough'],
    ['GIT_SSH_COMMAND=evil git fetch', { allow: ['git fetch:*'] }, 'passthrough'],
    ['find . -delete', { allow: ['find:*'] }, 'passthrough'],
    ['find . -exec rm {} +', { allow: ['find *'] }, 'passthrough'],
    ['find . -delete', { allow: ['find . -delete'] }, 'allow'],
    ['watch ls', { allow: ['watch:*'] }, 'passthrough'],
    ['setsid ls', { allow: ['setsid *'] }, 'passthrough'],
    ['ionice -c3 ls', { allow: ['ionice:*'] }, 'passthrough'],
    ['flock /tmp/l ls', { allow: ['flock:*'] }, 'passthrough'],
    ['cd /tmp && npm test', { allow: ['npm test'] }, 'ask', 'safetyCheck'],
    ['cd src && npm test', { allow: ['npm test'] }, 'allow'],
    ['npm test > out.log 2>&1', { allow: ['npm test'] }, 'allow'],
    ['npm test > /tmp/out.log', { allow: ['npm test'] }, 'ask'],
    ['cd x && npm test', { allow: ['cd x && npm test'] }, 'allow', 'allowRule'],
  ]);
});

describe('decisions carry a usable trace and suggestions', () => {
  it('allow by read-only names the layer', () => {
    expect(check('git status')).toEqual({ behavior: 'allow', decisionReason: { layer: 'readOnly', reason: expect.any(String) } });
  });

  it('allow by rule names the rule and the subcommand', () => {
    expect(check('git status && npm test', { allow: ['npm test'] })).toMatchObject({
      behavior: 'allow',
      decisionReason: { layer: 'allowRule', rule: 'Bash(npm test)', source: 'projectSettings', subcommand: 'npm test' },
    });
  });

  it('passthrough names the first subcommand that is not allowed and suggests prefix rules', () => {
    const result = check('git status && npm run test:unit -- --watch && git push origin main');
    expect(result.behavior).toBe('passthrough');
    if (result.behavior !== 'passthrough') return;
    expect(result.decisionReason).toMatchObject({ layer: 'toolCheck', subcommand: 'npm run test:unit -- --watch' });
    expect(result.message).toContain('npm run test:unit');
    expect(result.suggestions).toEqual([
      { toolName: 'Bash', ruleContent: 'npm run test:unit:*' },
      { toolName: 'Bash', ruleContent: 'git push:*' },
    ]);
  });

  it('suggests exact rules for dangerous commands and strips wrappers', () => {
    const result = check('timeout 10 rm -rf build');
    expect(result.behavior === 'passthrough' && result.suggestions).toEqual([{ toolName: 'Bash', ruleContent: 'rm -rf build' }]);
  });

  it('a suggested rule, once added, allows the command', () => {
    for (const command of ['npm run test:unit -- --watch', 'cargo build --release', 'rm -rf build', 'pytest -x tests', 'python3 -m pytest -q']) {
      const first = check(command);
      expect(first.behavior).toBe('passthrough');
      const suggestion = first.behavior === 'passthrough' ? first.suggestions?.[0]?.ruleContent : undefined;
      expect(suggestion).toBeDefined();
      expect(check(command, { allow: [suggestion!] }).behavior).toBe('allow');
    }
  });

  it('uses the engine read check when given (read denies deny, even under an allow rule)', () => {
    const withRead: BashPermissionDeps = {
      ...deps,
      checkReadPath: (abs) =>
        abs.endsWith('/.env')
          ? { behavior: 'deny', message: 'Read(.env) denies it', decisionReason: { layer: 'denyRule', reason: 'read deny', rule: 'Read(./.env)' } }
          : abs.startsWith(cwd) || abs.startsWith('/etc/hosts')
            ? { behavior: 'allow' }
            : { behavior: 'ask', message: 'outside' },
    };
    expect(check('cat .env', none, withRead)).toMatchObject({ behavior: 'deny', decisionReason: { layer: 'denyRule', rule: 'Read(./.env)', subcommand: 'cat .env' } });
    expect(check('cat .env', { allow: ['cat:*'] }, withRead).behavior).toBe('deny');
    expect(check('grep -r KEY src .env', none, withRead).behavior).toBe('deny');
    expect(check('head < .env', none, withRead).behavior).toBe('deny');
    expect(check('cat /etc/hosts', none, withRead).behavior).toBe('allow');
    expect(check('cat /etc/passwd', none, withRead).behavior).toBe('passthrough');
  });
});
