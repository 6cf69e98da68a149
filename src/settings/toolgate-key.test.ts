import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SECRET_ENV_PATTERNS } from '../execution/redaction.js';
import { loadSettings, type LoadSettingsOptions } from './load-settings.js';

let tmp: string;
let proj: string;
let home: string;

beforeEach(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-toolgate-key-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(proj, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(file: string, toolgate: unknown): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify({ toolgate }));
  return file;
}
const user = (toolgate: unknown) => write(path.join(home, '.claude', 'settings.json'), toolgate);
const project = (toolgate: unknown) => write(path.join(proj, '.claude', 'settings.json'), toolgate);
const local = (toolgate: unknown) => write(path.join(proj, '.toolgate', 'settings.local.json'), toolgate);
const load = (extra: Partial<LoadSettingsOptions> = {}) =>
  loadSettings({ cwd: proj, homeDir: home, managedSettingsPath: path.join(tmp, 'managed.json'), ...extra });

describe("a project's toolgate key narrows what toolgate protects, never widens it", () => {
  it('credentials passed through (bash.passEnv, redaction.passEnv) are ignored from a project, with a warning naming file and keys; from user settings they hold', () => {
    const file = project({ bash: { passEnv: ['*'] }, redaction: { passEnv: ['GITHUB_TOKEN'] } });
    const s = load();
    expect(s.toolgate).toEqual({});
    expect(s.warnings).toEqual([
      `${file}: "toolgate.bash.passEnv" (hands credentials to commands), "toolgate.redaction.passEnv" (shows credentials to the model) are ignored: a project's settings may narrow toolgate's protections, never widen them (set them in user settings or with --settings)`,
    ]);
    user({ bash: { passEnv: ['GH_TOKEN'] } });
    expect(load().toolgate).toEqual({ bash: { passEnv: ['GH_TOKEN'] } });
  });

  it("lists of what is secret (secretEnvPatterns, envPatterns, secretFiles) only grow: a project's are added to the others' or the default", () => {
    project({ bash: { secretEnvPatterns: [] }, redaction: { envPatterns: ['MY_*'], secretFiles: ['.env.local'] } });
    expect(load().toolgate).toEqual({
      bash: { secretEnvPatterns: [...DEFAULT_SECRET_ENV_PATTERNS] },
      redaction: { envPatterns: [...DEFAULT_SECRET_ENV_PATTERNS, 'MY_*'], secretFiles: ['.env.local'] },
    });
    user({ bash: { secretEnvPatterns: ['ONLY_THIS'] } });
    project({ bash: { secretEnvPatterns: ['AND_THIS'] } });
    const s = load();
    expect(s.toolgate).toEqual({ bash: { secretEnvPatterns: ['ONLY_THIS', 'AND_THIS'] } });
    expect(s.warnings).toEqual([]);
  });

  it('limits on how long or how much (killGraceMs, maxTimeoutMs, maxOutputFileBytes, maxWebSearchesPerSession) hold at or below the others or the default', () => {
    const file = project({ bash: { killGraceMs: 600_000, maxTimeoutMs: 60_000, maxOutputFileBytes: '1e12' }, maxWebSearchesPerSession: 10 });
    const s = load();
    expect(s.toolgate).toEqual({ bash: { maxTimeoutMs: 60_000 }, maxWebSearchesPerSession: 10 });
    expect(s.warnings).toEqual([
      `${file}: "toolgate.bash.killGraceMs": 600000 (above 300), "toolgate.bash.maxOutputFileBytes" (not a number) are ignored: a project's settings may narrow toolgate's protections, never widen them (set them in user settings or with --settings)`,
    ]);
    user({ bash: { killGraceMs: 50 } });
    project({ bash: { killGraceMs: 100 } });
    expect(load().toolgate).toEqual({ bash: { killGraceMs: 50 } });
    project({ bash: { killGraceMs: 20 } });
    expect(load().toolgate).toEqual({ bash: { killGraceMs: 20 } });
  });

  it('switches (redaction.enabled, requireReadBeforeWrite, disableBackgroundTasks, persistEnvironment) move only to their safe side', () => {
    const file = project({ redaction: { enabled: false }, requireReadBeforeWrite: false, bash: { disableBackgroundTasks: true, persistEnvironment: false } });
    const s = load();
    expect(s.toolgate).toEqual({ bash: { disableBackgroundTasks: true, persistEnvironment: false } });
    expect(s.warnings).toEqual([
      `${file}: "toolgate.redaction.enabled": false (would show credentials to the model), "toolgate.requireReadBeforeWrite": false (would let Edit and Write change files the model has not read) are ignored: a project's settings may narrow toolgate's protections, never widen them (set them in user settings or with --settings)`,
    ]);
    // The person turned redaction off and persistence off: the project may turn redaction back on, not persistence.
    user({ redaction: { enabled: false }, bash: { persistEnvironment: false } });
    project({ redaction: { enabled: true }, bash: { persistEnvironment: true } });
    const t = load();
    expect(t.toolgate).toEqual({ redaction: { enabled: true }, bash: { persistEnvironment: false } });
    expect(t.warnings).toHaveLength(1);
    expect(t.warnings[0]).toContain('"toolgate.bash.persistEnvironment": true (would let');
    // Saying the default changes nothing and warns of nothing.
    fs.rmSync(path.join(home, '.claude', 'settings.json'));
    expect(load().warnings).toEqual([]);
  });

  it("redaction.secrets from a project are added, never replace the person's", () => {
    user({ redaction: { secrets: { DEPLOY: 'hunter2-hunter2' } } });
    project({ redaction: { secrets: { DEPLOY: 'changed', EXTRA: 'extra-secret-value' } } });
    expect(load().toolgate).toEqual({ redaction: { secrets: { DEPLOY: 'hunter2-hunter2', EXTRA: 'extra-secret-value' } } });
    project({ redaction: { secrets: ['extra-secret-value'] } });
    const s = load();
    expect(s.toolgate).toEqual({ redaction: { secrets: { DEPLOY: 'hunter2-hunter2' } } });
    expect(s.warnings[0]).toContain('"toolgate.redaction.secrets" (a list where another level has a map');
  });

  it("unknown keys and keys that belong elsewhere (env, baseEnv, sandbox) are ignored from a project; autoMode is read level by level elsewhere; harmless keys merge as before", () => {
    const file = project({ env: { BASH_ENV: 'x' }, baseEnv: {}, sandbox: { enabled: false }, bash: { nope: 1 }, __proto__: { bash: {} }, autoMode: { fastModel: 'm' }, globTimeoutMs: 9000, bash2: 1 });
    const s = load();
    expect(s.toolgate).toEqual({ globTimeoutMs: 9000 });
    expect(s.warnings).toHaveLength(1);
    for (const key of ['env', 'baseEnv', 'sandbox', 'bash.nope', 'bash2']) expect(s.warnings[0]).toContain(`"toolgate.${key}"`);
    expect(s.warnings[0]).toContain(file);
    expect(s.warnings[0]).not.toContain('autoMode');
  });

  it('local files are a project\'s too (a repository can commit one); --settings and user files are the person\'s', () => {
    local({ bash: { passEnv: ['*'], killGraceMs: 600_000 } });
    expect(load().toolgate).toEqual({});
    const s = load({ flagSettingsFiles: ['{"toolgate":{"bash":{"passEnv":["GH_TOKEN"],"killGraceMs":1000}}}'] });
    expect(s.toolgate).toEqual({ bash: { passEnv: ['GH_TOKEN'], killGraceMs: 1000 } });
  });
});
