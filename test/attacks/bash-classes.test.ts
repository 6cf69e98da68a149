/**
 * docs/security.md, "Bash command analysis: the older classes" (issue 32). Each class is attacked as a model after a
 * prompt injection would vary it, against a real project (real files, symlinks, git repositories): through the
 * engine (`resolvePermission` with the real Bash tool), and — where the command would leak a denied file or run a
 * program — through the real runtime (`runToolUse`, the engine's headless gate, real bash): the secret must not
 * appear in the tool_result, the program must not run. The cases under "closed here" fail without the defence named;
 * the "held already" tables keep the variants that held before from coming undone.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToolRuntime } from '../../src/agent/create-tool-runtime.js';
import { runToolUse } from '../../src/execution/pipeline.js';
import { createCanUseTool } from '../../src/permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../../src/permissions/permission-context.js';
import { resolvePermission } from '../../src/permissions/resolve.js';
import { loadBashParser } from '../../src/permissions/bash/parser.js';
import { homeOfUser } from '../../src/permissions/user-home.js';
import { BashTool } from '../../src/tools/bash/index.js';
import { createTaskRegistry } from '../../src/tools/shared/task-registry.js';
import type { PermissionMode } from '../../src/tool/permission-types.js';
import type { AnyTool, ToolUseBlock } from '../../src/tool/tool.js';
import { toolResultText } from '../../src/tool/tool-result.js';
import { createToolUseContext } from '../../src/tool/tool-use-context.js';

await loadBashParser();

const SECRET = 'S3CRET-bash-classes-4711';
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tg-bash-classes-')));
const proj = join(root, 'proj');
const home = join(root, 'home');
const ran = (name: string) => join(root, `ran-${name}`);

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'pipe', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });

beforeAll(() => {
  for (const d of ['src', 'sub', 'conf', 'vendor/lib']) mkdirSync(join(proj, d), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(join(proj, '.env'), `TOKEN=${SECRET}\n`);
  writeFileSync(join(proj, 'conf', 'secret.txt'), `${SECRET}\n`);
  writeFileSync(join(proj, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(proj, 'README.txt'), 'readme\n');
  // `sub/up/../conf/secret.txt` is conf/secret.txt to the kernel (`up` is src, whose parent is the project).
  symlinkSync('../src', join(proj, 'sub', 'up'));
  // A script that leaves a mark when git runs it (as a diff driver, a textconv filter).
  const hook = join(root, 'hook.sh');
  writeFileSync(hook, `#!/bin/sh\ntouch "${root}/ran-$HOOK_NAME"\ncat "$1" 2>/dev/null\nexit 0\n`);
  chmodSync(hook, 0o755);
  git(proj, 'init', '-q');
  writeFileSync(join(proj, '.gitignore'), '.env\nconf/\nvendor/\nlnk\n');
  git(proj, 'add', 'README.txt', 'src', '.gitignore');
  git(proj, 'commit', '-q', '-m', 'init');
  // Another repository inside the project (a vendored checkout), whose configuration runs a program on `git diff`.
  const vendor = join(proj, 'vendor');
  git(vendor, 'init', '-q');
  writeFileSync(join(vendor, 'lib', 'x.txt'), 'one\n');
  git(vendor, 'add', '.');
  git(vendor, 'commit', '-q', '-m', 'v');
  writeFileSync(join(vendor, 'lib', 'x.txt'), 'two\n');
  git(vendor, 'config', 'diff.external', `env HOOK_NAME=vendor-diff ${hook}`);
  // A symbolic link into a folder of that repository: git finds the repository from where the link leads.
  symlinkSync(join(vendor, 'lib'), join(proj, 'lnk'));
  // A folder named `~` (a quoted tilde names it) holding a link to the denied file.
  mkdirSync(join(proj, '~'));
  symlinkSync('../.env', join(proj, '~', 'x'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Setup {
  readonly deny?: readonly string[];
  readonly allow?: readonly string[];
  readonly mode?: PermissionMode;
}

const contextOf = (s: Setup) =>
  createPermissionContext({
    cwd: proj,
    homeDir: home,
    mode: s.mode ?? 'default',
    rules: [...parseRules(s.deny ?? [], 'deny', 'projectSettings'), ...parseRules(s.allow ?? [], 'allow', 'projectSettings')],
  });

type Outcome = 'allow' | 'deny' | 'askRule' | 'ask';
async function decide(command: string, s: Setup): Promise<Outcome> {
  const d = await resolvePermission(BashTool as AnyTool, { command }, contextOf(s));
  if (d.behavior !== 'ask') return d.behavior;
  return d.decisionReason?.layer === 'askRule' ? 'askRule' : 'ask';
}

let calls = 0;
/** One Bash tool_use through the real pipeline and the engine's headless gate: the tool_result's text. */
async function run(command: string, s: Setup): Promise<string> {
  const tasks = createTaskRegistry();
  const context = createToolUseContext({
    tools: [BashTool as AnyTool],
    permissionContext: contextOf(s),
    sessionDir: join(root, `.session-${++calls}`),
    settings: { bash: { killGraceMs: 200 } },
    services: { tasks },
  });
  const block = { type: 'tool_use', id: `toolu_classes_${calls}`, name: 'Bash', input: { command } } as ToolUseBlock;
  try {
    const outcome = await runToolUse(block, { role: 'assistant', content: [block] }, createCanUseTool(), context);
    return toolResultText(outcome.result);
  } finally {
    await tasks.shutdown();
  }
}

const ENV = ['Read(./.env)', 'Read(./conf/secret.txt)'];

describe('class 1: a glob (or path) that reaches a denied file is checked against what the kernel opens', () => {
  describe('closed here', () => {
    it.each([
      // `/proc/self/cwd` in a glob is the command's directory, not toolgate's (was a prompt bypass passed).
      ['cat /proc/self/cwd/.e*', 'deny'],
      ['cat /proc/thread-self/cwd/conf/*', 'deny'],
      ['head -n 5 /proc/self/cwd/.en?', 'deny'],
      ['cat /proc/*/cwd/.e*', 'askRule'],
      ['cat /proc/sel[f]/cwd/.env', 'askRule'],
      // `..` after a symbolic link is the link target's parent (was allowed: lexically sub/conf/secret.txt).
      ['cat sub/up/../conf/secret.txt', 'deny'],
      ['cat sub/up/../conf/*', 'deny'],
      ['cat sub/up/../c*/s*', 'deny'],
      ['grep -r S3CRET sub/up/../conf', 'askRule'],
      ['cd sub/up && cat ../conf/secret.txt', 'deny'],
      ['cd sub/up && cat ../c*/*', 'deny'],
    ] as const)('%j: %s in default and bypassPermissions', async (command, want) => {
      expect(await decide(command, { deny: ENV })).toBe(want);
      expect(await decide(command, { deny: ENV, mode: 'bypassPermissions' })).toBe(want);
    });

    it('through the runtime: none of them prints the denied file, in bypassPermissions', async () => {
      for (const command of ['cat /proc/self/cwd/.e*', 'cat /proc/self/cwd/conf/*', 'cat sub/up/../conf/secret.txt', 'cat sub/up/../c*/s*']) {
        const text = await run(command, { deny: ENV, mode: 'bypassPermissions' });
        expect(text, command).not.toContain(SECRET);
        expect(text, command).toMatch(/denied|approval|cannot be ruled out/i);
      }
    });

    it.each([
      // What exists now is not what the glob meets when another part of the command creates files first.
      ['git stash pop; cat .st*', 'askRule'],
      ['git stash pop && head .s?ashed', 'askRule'],
      ['cat .st*; git stash pop', 'askRule'],
      ['for i in 1 2; do cat .[s]tashed; git stash pop; done', 'askRule'],
      ['cat .st* | git stash pop', 'askRule'],
      ['git stash pop; cat *', 'askRule'],
      ['git stash pop; cat keys/*', 'askRule'],
    ] as const)('%j: the glob could match a denied name that the command itself may create: %s', async (command, want) => {
      const deny = ['Read(./.stashed)', 'Read(**/*.key)'];
      expect(await decide(command, { deny, allow: ['Bash(git stash pop)'] })).toBe(want);
      expect(await decide(command, { deny, mode: 'bypassPermissions' })).toBe(want);
    });

    it('through the runtime: a stashed secret popped and read in one command is not printed', async () => {
      writeFileSync(join(proj, '.stashed'), `${SECRET}\n`);
      git(proj, 'stash', 'push', '-q', '-u', '--', '.stashed');
      expect(existsSync(join(proj, '.stashed'))).toBe(false);
      const text = await run('git stash pop -q; cat .st*', { deny: ['Read(./.stashed)'], allow: ['Bash(git stash pop -q)'] });
      expect(text).not.toContain(SECRET);
      rmSync(join(proj, '.stashed'), { force: true });
    });
  });

  describe('held already (the variants an attacker tries first)', () => {
    it.each([
      'cat .e*', 'cat ./.e*', 'cat .e?v', 'cat .?nv', 'cat .[e]nv', 'cat .[!x]nv', 'cat .[[:lower:]]nv', 'cat {.e,x}nv', 'cat .{e,x}nv',
      'cat .*', 'cat */../.e*', 'cat src/../.e*', 'env cat .e*', 'command cat .e*', 'timeout 5 cat .e*', 'nice cat .e*',
      "bash -c 'cat .e*'", 'sh -c "cat .e*"', '(cat .e*)', 'echo x | cat .e*', 'true && cat .e*', 'cat -- .e*', 'cat .\\e*', "cat '.e'*",
      'grep -r TOKEN .e*', 'sed -n p .e*', 'awk 1 .e*', 'base64 .e*', 'cp .e* /tmp/x', 'cd src && cat ../.e*', 'cat c*/s*', 'xxd .e*',
      // Judged as `cat .e*` (loop-values.ts): its matches are checked, so denied rather than asked.
      'for f in .e*; do cat "$f"; done',
    ])('%j: denied, in every mode', async (command) => {
      expect(await decide(command, { deny: ENV })).toBe('deny');
      expect(await decide(command, { deny: ENV, mode: 'bypassPermissions' })).toBe('deny');
    });

    it.each(['cat .@(env)', 'cat $PWD/.e*', 'cat "$(ls -a | grep env)"', 'cat < .e*', 'ls -a | xargs cat'])(
      '%j: cannot be checked here, so asked (bypass included)',
      async (command) => {
        expect(await decide(command, { deny: ENV })).toBe('askRule');
        expect(await decide(command, { deny: ENV, mode: 'bypassPermissions' })).toBe('askRule');
      },
    );
  });
});

describe('class 2: ${…} expansions in an otherwise read-only command ask; bare $VAR stays', () => {
  it.each([
    'echo ${HOME}', 'echo "${HOME}"', 'echo ${HOME:-x}', 'echo ${x:=y}', 'echo ${#x}', 'echo ${x/a/b}', 'echo ${x^^}', 'echo ${x@Q}',
    'printf %s ${x}', '[[ -n ${x} ]]', 'x=${y}', 'echo "$(echo ${x})"', 'cat <<EOF\n${X}\nEOF', 'for f in ${L}; do echo "$f"; done',
    'pwd; echo ${PWD}',
  ])('%j: not read-only (asks)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  it.each(['echo $HOME', 'echo "$HOME"', 'echo $1 $# "$@" $?', "echo '${HOME}'", 'echo \\${HOME}', "cat <<'EOF'\n${X}\nEOF"])('%j: still read-only', async (command) => {
    expect(await decide(command, {})).toBe('allow');
  });
});

describe('class 3: git options that run configured programs ask', () => {
  it.each([
    'git log --textconv', 'git log -p --textconv', 'git diff --textconv', 'git diff --textc', 'git show --textconv HEAD:README.txt',
    'git blame --textconv README.txt', 'git cat-file --textconv HEAD:README.txt', 'git cat-file --filters HEAD:README.txt',
    'git cat-file --filt HEAD:README.txt', 'git grep --textconv readme', 'git log --show-signature', 'git log --format=%G?',
    'git log --pretty=format:%GK', 'timeout 5 git log --textconv', "bash -c 'git show --textconv HEAD:README.txt'",
    'git -C src log --textconv', 'git verify-commit HEAD', "git for-each-ref --format='%(signature)'", "git branch --format='%(signature:grade)'",
  ])('%j: not read-only (closed here)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  it.each([
    'git -c core.pager=id log', 'git -ccore.pager=id log', 'git --config-env=core.pager=X log', 'git --exec-path=/tmp log', 'git --exec-path /tmp log',
    'git --upload-pack=id ls-remote .', 'git ls-remote --upload-pack=id .', 'git diff --ext-diff', 'git diff --ext', 'git log --output=x',
    'git grep -Ovim x', 'git tag -v v1', 'GIT_EXTERNAL_DIFF=id git diff', 'GIT_PAGER=id git log', 'env GIT_PAGER=id git log', 'git difftool -x id',
  ])('%j: not read-only (held already)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  // A file outside the project that blame prints: `--contents` as blame lines, a revs file line by line in errors.
  const outside = () => join(root, 'outside-secret.txt');
  it.each([
    ['git blame --conte=%s README.txt'], ['git blame --ignore-revs-file=%s README.txt'], ['git blame --ignore-revs-fi=%s README.txt'],
    ['git annotate --ignore-revs-file=%s README.txt'], ['git blame -S%s README.txt'], ['git blame -wS%s README.txt'],
  ])('%j: a file blame prints, named in the option word, is checked as a read: asked (closed here)', async (form) => {
    expect(await decide(form.replace('%s', outside()), {})).toBe('ask');
    expect(await decide(form.replace('%s', '.env'), { deny: ENV, mode: 'bypassPermissions' })).toBe('deny');
  });

  it('through the runtime: blame does not print a file outside the project (closed here)', async () => {
    writeFileSync(outside(), `${SECRET}\n`);
    for (const command of [`git blame --conte=${outside()} README.txt`, `git blame --ignore-revs-file=${outside()} README.txt`, `git blame -S${outside()} README.txt`]) {
      expect(await run(command, {}), command).not.toContain(SECRET);
    }
  });

  it('through the runtime: git cat-file --textconv does not run a textconv driver', async () => {
    // The driver is defined where the engine does not look (the user's global configuration), chosen by a
    // `.gitattributes` the repository brings.
    const globalConfig = join(root, 'gitconfig');
    writeFileSync(globalConfig, `[diff "tc"]\n\ttextconv = env HOOK_NAME=textconv ${join(root, 'hook.sh')}\n`);
    writeFileSync(join(proj, '.gitattributes'), '*.txt diff=tc\n');
    const before = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      await run('git cat-file --textconv HEAD:README.txt', {});
      expect(existsSync(ran('textconv'))).toBe(false);
    } finally {
      if (before === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = before;
      rmSync(join(proj, '.gitattributes'), { force: true });
    }
  });
});

describe('class 4: `cd DIR && git …` where DIR may hold another repository asks', () => {
  it.each([
    // A symbolic link into another repository's folder: git walks up from where the link leads.
    'cd lnk && git diff',
    'cd lnk && git status',
    'git -C lnk diff',
    'cd -P lnk && git log',
    // `--` ends cd's options: the target is the next word.
    'cd -- vendor && git diff',
    'cd -P -- vendor && git diff',
    // A glob target is whatever directory it meets.
    'cd v* && git diff',
    'cd vend?r && git diff',
    'git -C v* diff',
  ])('%j: asked (closed here)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  it.each([
    // Something else in the command may make the repository first.
    ['tar xf repo.tar && cd sub && git log', ['Bash(tar xf:*)']],
    ['git init -q sub && cd sub && git log', ['Bash(git init:*)']],
    ['mkdir -p sub/x && cd sub/x && git status', ['Bash(mkdir:*)']],
  ] as const)('%j: asked even with the other part allowed by a rule (closed here)', async (command, allow) => {
    expect(await decide(command, { allow })).toBe('ask');
  });

  it.each(['pushd && git diff', 'cd vendor && git diff', 'cd ./vendor && git log', 'cd vendor/lib && git log', '(cd vendor && git log)', 'cd vendor; git log', 'git -C vendor log', 'cd "$X" && git log', 'cd - && git log'])(
    '%j: asked (held already)',
    async (command) => {
      expect(await decide(command, {})).toBe('ask');
    },
  );

  it('through the runtime: none of them runs the other repository’s diff driver', async () => {
    for (const command of ['cd lnk && git diff', 'git -C lnk diff', 'cd -- vendor && git diff', 'cd v* && git diff', 'git -C v* diff']) {
      await run(command, {});
      expect(existsSync(ran('vendor-diff')), command).toBe(false);
    }
  });

  it('through a session: a cd that carries over into another repository makes the next git ask (bash-state meets class 4)', async () => {
    const asked: string[] = [];
    const rt = await createToolRuntime({
      cwd: proj,
      sessionDir: join(root, `.session-state-${++calls}`),
      settings: { sources: [], object: {} },
      mode: 'default',
      onPermissionRequest: async (r) => {
        asked.push(String(r.input.command));
        return { behavior: 'deny', message: 'not approved' };
      },
    });
    const sh = async (command: string) => {
      const block = { type: 'tool_use', id: `toolu_classes_state_${++calls}`, name: 'Bash', input: { command } } as ToolUseBlock;
      await rt.run([block]);
    };
    try {
      // Control: in the project's own repository a carried-over cd changes nothing.
      await sh('cd src');
      await sh('git status');
      expect(asked).toEqual([]);
      for (const dir of ['lnk', 'vendor']) {
        await sh(`cd ${proj}`);
        await sh(`cd ${dir}`);
        await sh('git diff');
        expect(existsSync(ran('vendor-diff')), dir).toBe(false);
      }
      expect(asked).toEqual(['git diff', 'git diff']);
    } finally {
      await rt.dispose();
    }
  });
});

describe('class 5: sed scripts beyond plain printing ask', () => {
  it.each(["sed x README.txt", "sed -n 'x;p' README.txt", "sed -e p -e x README.txt", "sed --expression=x README.txt", "sed '1x' README.txt", 'timeout 5 sed x README.txt'])(
    '%j: asked (closed here)',
    async (command) => {
      expect(await decide(command, {})).toBe('ask');
    },
  );

  it.each([
    // GNU sed ends a label at a blank and reads what follows as the next command; the reader took the rest of the line.
    "sed -n ':x e id' README.txt", "sed -n 'bx w out' README.txt", "sed -n 'b x w out' README.txt", "sed 'tx e id' README.txt",
    "sed 'Tx w out' README.txt", "sed -n ':x\te id' README.txt", "sed -n -e p -e ':x e id' README.txt", "sed 's/a/b/;tx w out' README.txt",
    // BSD sed takes the rest of the line as the label: text that would continue onto the next line is asked too.
    "sed $':x;a foo\\\\\\nw out' README.txt", "sed $'bx;s/a/b\\\\\\nw out/' README.txt",
  ])('%j: text after a label is asked, with no rule and under a prefix rule (closed here)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
    expect(await decide(command, { allow: ['Bash(sed:*)'] })).toBe('ask');
  });

  it('through the runtime: a command after a label does not run, even under Bash(sed -n:*) (closed here)', async () => {
    const text = await run(`sed -n ':x e touch ${ran('sed-label')}' README.txt`, { allow: ['Bash(sed -n:*)'] });
    expect(existsSync(ran('sed-label')), text).toBe(false);
  });

  it.each([
    "sed 'e id' README.txt", 'sed e README.txt', "sed '1e id' README.txt", "sed 's/.*/id/e' README.txt", "sed 's/a/b/w out' README.txt",
    "sed 'w out' README.txt", "sed 'W out' README.txt", "sed 'r /etc/passwd' README.txt", "sed 'R /etc/passwd' README.txt",
    "sed -e p -e 'e id' README.txt", "sed --expression='e id' README.txt", "sed --expr='e id' README.txt", "sed -ne 'e id' README.txt",
    "sed -f s.sed README.txt", "sed -i 's/a/b/' README.txt", "sed --in-place 's/a/b/' README.txt", "sed --in-pl 's/a/b/' README.txt",
    "sed 'v' README.txt", "sed 'k' README.txt", "sed \"$S\" README.txt", "bash -c \"sed 'e id' README.txt\"",
    "sed -ni 's/a/b/' README.txt", "sed -Ei 's/a/b/' README.txt", "sed -i.bak p README.txt", "sed -n -i p README.txt",
    "sed --in-place=.bak p README.txt", "sed 's/a/b/gw out' README.txt", "sed 's|a|b|w out' README.txt", "sed 's/a/b/Ie' README.txt",
    "sed 's/a/b/ e' README.txt", "sed '1,3w out' README.txt", "sed $'p\\nw out' README.txt", "sed 'q5 w out' README.txt",
    "sed --e='w out' README.txt", "sed -new README.txt", "sed --fi=s.sed README.txt",
  ])('%j: asked (held already)', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  it('through the runtime: sed e, s///e, w, s///w and -i neither run, write nor edit (held already)', async () => {
    await run(`sed '1e touch ${ran('sed')}' README.txt`, {});
    await run(`sed 's/.*/touch ${ran('sed-s-e')}/e' README.txt`, {});
    await run(`sed -n 'w ${ran('sed-w')}' README.txt`, {});
    await run(`sed 's/a/b/w ${ran('sed-s-w')}' README.txt`, {});
    await run("sed -i 's/readme/pwned/' README.txt", {});
    for (const name of ['sed', 'sed-s-e', 'sed-w', 'sed-s-w']) expect(existsSync(ran(name)), name).toBe(false);
    expect(readFileSync(join(proj, 'README.txt'), 'utf8')).toBe('readme\n');
  });
});

describe('class 6: ~user is another user’s home, never a relative folder', () => {
  // A user the passwd database knows on any Linux machine, with a home that is not ours.
  const nobodyHome = homeOfUser('nobody') ?? '/nonexistent';
  it.each([
    ['cat ~nobody/.ssh/id_rsa', 'deny'],
    ['cd ~nobody && cat .ssh/id_rsa', 'deny'],
    ['grep -r key ~nobody/.ssh', 'deny'],
  ] as const)('%j with that home denied: %s (closed here: was "cannot be known")', async (command, want) => {
    expect(await decide(command, { deny: [`Read(/${nobodyHome}/.ssh/**)`] })).toBe(want);
  });

  it.each(['cat ~nobody/x', 'cat ~nosuchuser4711/x', 'ls ~+/../..', 'cat ~-/x', 'cat ~1/x', 'cat ~root/.bashrc'])('%j: outside the project or unknowable, so asked', async (command) => {
    expect(await decide(command, {})).toBe('ask');
  });

  it.each(['cat "~/x"', "cat '~/x'", 'cat \\~/x', "cat '~'/x", 'cat ~"/x"', 'cat "~"/*', 'cd "~" && cat x', 'head -1 "~"/?'])(
    '%j: a quoted tilde is the folder ~, whose x is the denied file: denied in every mode (closed here)',
    async (command) => {
      expect(await decide(command, { deny: ENV })).toBe('deny');
      expect(await decide(command, { deny: ENV, mode: 'bypassPermissions' })).toBe('deny');
    },
  );

  it('through the runtime: a quoted tilde does not print the denied file, in bypassPermissions', async () => {
    for (const command of ['cat "~/x"', 'cat \\~/x', 'cat "~"/*']) {
      const text = await run(command, { deny: ENV, mode: 'bypassPermissions' });
      expect(text, command).not.toContain(SECRET);
    }
  });

  it('a folder literally named ~nosuchuser in the project is still not taken for allowed', async () => {
    mkdirSync(join(proj, '~nosuchuser4711'), { recursive: true });
    writeFileSync(join(proj, '~nosuchuser4711', 'x'), 'x');
    // bash would read the folder (no such user), but the user may exist when the command runs: asked.
    expect(await decide('cat ~nosuchuser4711/x', {})).toBe('ask');
  });
});
