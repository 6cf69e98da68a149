import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSubagentContext } from '../../tool/tool-use-context.js';
import type { BashOutput } from './bash-output.js';
import { buildChildEnv, isSecretEnvName } from './child-env.js';
import { BashTool } from './index.js';
import { callTool, makeProject, type TestProject } from './test-helpers/project.js';

let project: TestProject;
let outside: string;
beforeEach(() => {
  project = makeProject();
  outside = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-outside-')));
  mkdirSync(path.join(project.dir, 'sub', 'deeper'), { recursive: true });
});
afterEach(async () => {
  await project.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const run = (command: string, p: TestProject = project, context = p.context) =>
  callTool<BashOutput>(BashTool, { command }, context);

describe('working directory', () => {
  it('carries a cd inside the working directories over to the next call', async () => {
    await run('cd sub/deeper');
    expect(project.context.getAppState().cwd).toBe(path.join(project.dir, 'sub', 'deeper'));
    expect((await run('pwd')).text).toBe(path.join(project.dir, 'sub', 'deeper'));
    await run('cd ..');
    expect((await run('pwd')).text).toBe(path.join(project.dir, 'sub'));
  });

  it('records the directory even when the command fails or calls exit', async () => {
    const r = await run('cd sub && exit 5');
    expect(r.block.is_error).toBe(true);
    expect((await run('pwd')).text).toBe(path.join(project.dir, 'sub'));
  });

  it('keeps tracking the directory when the command uses descriptor 3 itself', async () => {
    await run('exec 3> fd3.txt; echo data >&3; cd sub');
    expect(project.context.getAppState().cwd).toBe(path.join(project.dir, 'sub'));
    expect(readFileSync(path.join(project.dir, 'fd3.txt'), 'utf8')).toBe('data\n');
  });

  it('resets to the project directory after a cd outside, and says so', async () => {
    await run('cd sub');
    const r = await run(`cd ${outside} && pwd`);
    expect(r.text).toBe(`${outside}\nShell cwd was reset to ${project.dir}`);
    expect(r.data.cwdResetTo).toBe(project.dir);
    expect((await run('pwd')).text).toBe(project.dir);
  });

  it('accepts a cd into an additional working directory', async () => {
    const withExtra = makeProject({ additionalDirs: [outside] });
    try {
      const r = await run(`cd ${outside}`, withExtra);
      expect(r.text).toBe('(Bash completed with no output)');
      expect((await run('pwd', withExtra)).text).toBe(outside);
    } finally {
      await withExtra.cleanup();
    }
  });

  it('starts in the project directory when the tracked one was deleted', async () => {
    await run('cd sub/deeper');
    rmSync(path.join(project.dir, 'sub'), { recursive: true });
    const r = await run('pwd');
    expect(r.text).toBe(`${project.dir}\nShell cwd was reset to ${project.dir}`);
  });

  it('never moves the shared cwd from a sub-agent', async () => {
    const child = createSubagentContext(project.context);
    await run('cd sub', project, child);
    expect(project.context.getAppState().cwd).toBe(project.dir);
  });
});

describe('environment', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  });

  it('does not keep exported variables between calls', async () => {
    await run('export TOOLGATE_TEST_VAR=set');
    expect((await run('echo "[${TOOLGATE_TEST_VAR:-unset}]"')).text).toBe('[unset]');
  });

  it('sources the env file named by TOOLGATE_ENV_FILE (or CLAUDE_ENV_FILE) before every command', async () => {
    const envFile = path.join(outside, 'env.sh');
    writeFileSync(envFile, 'export FROM_ENV_FILE=one\n');
    process.env.CLAUDE_ENV_FILE = envFile;
    expect((await run('echo $FROM_ENV_FILE')).text).toBe('one');
    writeFileSync(envFile, 'export FROM_ENV_FILE=two\n');
    expect((await run('echo $FROM_ENV_FILE')).text).toBe('two');
    const mine = path.join(outside, 'mine.sh');
    writeFileSync(mine, 'export FROM_ENV_FILE=toolgate\n');
    process.env.TOOLGATE_ENV_FILE = mine;
    expect((await run('echo $FROM_ENV_FILE')).text).toBe('toolgate');
  });

  it('runs fine when the env file does not exist', async () => {
    process.env.TOOLGATE_ENV_FILE = path.join(outside, 'missing.sh');
    expect((await run('echo ok')).text).toBe('ok');
  });

  it('scrubs secrets from the child environment', async () => {
    process.env.ANTHROPIC_API_KEY = 'sk-ant-secret';
    process.env.GITHUB_TOKEN = 'ghp-secret';
    process.env.DB_PASSWORD = 'hunter2';
    process.env.my_app_secret = 'lower';
    process.env.HARMLESS_SETTING = 'visible';
    const r = await run('env');
    expect(r.text).not.toContain('sk-ant-secret');
    expect(r.text).not.toContain('ghp-secret');
    expect(r.text).not.toContain('hunter2');
    expect(r.text).not.toContain('lower');
    expect(r.text).toContain('HARMLESS_SETTING=visible');
    expect(r.text).toContain('TOOLGATE=1');
  });

  it('passes a secret through when the settings name it, and takes custom patterns', async () => {
    process.env.GITHUB_TOKEN = 'ghp-pass';
    process.env.CUSTOM_CRED = 'custom';
    const custom = makeProject({ settings: { bash: { passEnv: ['GITHUB_TOKEN'], secretEnvPatterns: ['*_TOKEN', 'CUSTOM_*'] } } });
    try {
      // The child gets the passed secret; the model still never sees its value (redaction at the result boundary).
      const r = await run('[ "$GITHUB_TOKEN" = ghp-pass ] && echo "passed/${CUSTOM_CRED:-gone}"; echo "$GITHUB_TOKEN"', custom);
      expect(r.text).toBe('passed/gone\n[REDACTED:GITHUB_TOKEN]');
    } finally {
      await custom.cleanup();
    }
  });

  it('matches secret names case-insensitively and leaves others alone', () => {
    expect(isSecretEnvName('npm_token')).toBe(true);
    expect(isSecretEnvName('AWS_SECRET_ACCESS_KEY')).toBe(true);
    expect(isSecretEnvName('TOKENIZER_PATH')).toBe(false);
    const { env, scrubbed } = buildChildEnv({ A_TOKEN: 'x', PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin', TOOLGATE: '1' });
    expect(scrubbed).toEqual(['A_TOKEN']);
  });
});

describe('secret patterns', () => {
  it('supports prefix, suffix, exact and inner-star globs', () => {
    expect(isSecretEnvName('AWS_PROFILE', ['AWS_*'])).toBe(true);
    expect(isSecretEnvName('MY_AWS', ['AWS_*'])).toBe(false);
    expect(isSecretEnvName('API_KEY', ['API_KEY'])).toBe(true);
    expect(isSecretEnvName('X_API_KEY_Y', ['*API*KEY*'])).toBe(true);
    expect(isSecretEnvName('APIKEY.', ['API.KEY'])).toBe(false);
  });
});
