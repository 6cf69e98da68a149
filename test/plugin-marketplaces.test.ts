/**
 * Marketplace and plugin source kinds Claude Code documents that can be met without a network: a marketplace given as
 * a `file` (its marketplace.json anywhere), a `git` marketplace at a `ref`, and plugin entries kept in git
 * repositories of their own (`url`, `git-subdir`) — all local git repositories cloned through the one hardened git
 * runner (transports file and https). A `ref` that would be an option and a `git-subdir` path climbing out are refused.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installPlugin, pluginSettingsOf, pluginsDir, type PluginStateOptions } from '../src/settings/plugin-install.js';

const KIT = realpathSync(path.join(import.meta.dirname, 'fixtures', 'plugins', 'toolgate-kit'));

let root: string;
let o: PluginStateOptions;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolgate-marketplaces-')));
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(path.join(root, 'work'));
  o = { cwd: path.join(root, 'work'), env: { PATH: process.env.PATH, XDG_STATE_HOME: path.join(root, 'state') }, homeDir: home, sources: ['user'] };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const marketplaces = (value: unknown) => writeFileSync(path.join(o.homeDir, '.claude', 'settings.json'), JSON.stringify({ extraKnownMarketplaces: value }));
const manifest = (plugins: unknown[]) => JSON.stringify({ name: 'm', owner: { name: 't' }, plugins });
const cached = () => path.join(pluginsDir(o), 'cache', 'm', 'toolgate-kit');

function gitRepo(dir: string, commit: (git: (...args: string[]) => void) => void): string {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]) => void execFileSync('git', args, { cwd: dir, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q', '-b', 'main');
  commit(git);
  return dir;
}

describe('marketplace sources', { timeout: 60_000 }, () => {
  it('a "file" marketplace: its marketplace.json anywhere, its "./" plugins beside it', async () => {
    const m = path.join(root, 'catalog');
    cpSync(KIT, path.join(m, 'plugins', 'toolgate-kit'), { recursive: true });
    writeFileSync(path.join(m, 'team-market.json'), manifest([{ name: 'toolgate-kit', source: './plugins/toolgate-kit' }]));
    marketplaces({ m: { source: { source: 'file', path: path.join(m, 'team-market.json') } } });
    const done = await installPlugin('toolgate-kit@m', o, async () => true);
    expect(done?.installed.path).toBe(cached());
    expect(existsSync(path.join(cached(), 'commands', 'greet.md'))).toBe(true);
  });

  it('a git marketplace at a "ref": the branch\'s plugins, not the default branch\'s', async () => {
    const repo = gitRepo(path.join(root, 'market'), (git) => {
      mkdirSync(path.join(root, 'market', '.claude-plugin'));
      writeFileSync(path.join(root, 'market', '.claude-plugin', 'marketplace.json'), manifest([]));
      git('add', '-A');
      git('commit', '-qm', 'empty');
      git('checkout', '-q', '-b', 'release');
      cpSync(KIT, path.join(root, 'market', 'plugins', 'toolgate-kit'), { recursive: true });
      writeFileSync(path.join(root, 'market', '.claude-plugin', 'marketplace.json'), manifest([{ name: 'toolgate-kit', source: './plugins/toolgate-kit' }]));
      git('add', '-A');
      git('commit', '-qm', 'kit');
      git('checkout', '-q', 'main');
    });
    marketplaces({ m: { source: { source: 'git', url: repo } } });
    await expect(installPlugin('toolgate-kit@m', o, async () => true)).rejects.toThrow(/no plugin named "toolgate-kit"/);
    marketplaces({ m: { source: { source: 'git', url: repo, ref: 'release' } } });
    expect((await installPlugin('toolgate-kit@m', o, async () => true))?.installed.path).toBe(cached());
  });

  it('a "ref" that would be an option of git clone is refused before git runs', () => {
    marketplaces({ m: { source: { source: 'git', url: path.join(root, 'x'), ref: `--upload-pack=touch ${root}/ran` } } });
    const s = pluginSettingsOf(o);
    expect(s.marketplaces.has('m')).toBe(false);
    expect(s.warnings.join()).toMatch(/"ref" must be a branch or tag name/);
  });
});

describe('plugins kept in git repositories of their own', { timeout: 60_000 }, () => {
  let kitRepo: string;
  let monoRepo: string;
  beforeEach(() => {
    kitRepo = gitRepo(path.join(root, 'kit-repo'), (git) => {
      cpSync(KIT, path.join(root, 'kit-repo'), { recursive: true });
      git('add', '-A');
      git('commit', '-qm', 'kit');
    });
    monoRepo = gitRepo(path.join(root, 'mono'), (git) => {
      cpSync(KIT, path.join(root, 'mono', 'plugins', 'toolgate-kit'), { recursive: true });
      git('add', '-A');
      git('commit', '-qm', 'mono');
    });
  });

  function directoryMarket(plugins: unknown[]): void {
    const m = path.join(root, 'market');
    mkdirSync(path.join(m, '.claude-plugin'), { recursive: true });
    writeFileSync(path.join(m, '.claude-plugin', 'marketplace.json'), manifest(plugins));
    marketplaces({ m: { source: { source: 'directory', path: m } } });
  }

  it('"url": the repository is cloned, the plugin shown and copied (without .git), the clone removed', async () => {
    directoryMarket([{ name: 'toolgate-kit', source: { source: 'url', url: kitRepo } }]);
    let shown = '';
    const done = await installPlugin('toolgate-kit@m', o, async (p) => ((shown = p.name), true));
    expect(shown).toBe('toolgate-kit');
    expect(done?.installed.path).toBe(cached());
    expect(existsSync(path.join(cached(), 'hooks', 'hooks.json'))).toBe(true);
    expect(existsSync(path.join(cached(), '.git'))).toBe(false);
    expect(readdirSync(path.join(pluginsDir(o), 'sources', 'm'))).toEqual([]);
  });

  it('"git-subdir": the plugin in a folder of the repository; a "path" climbing out is skipped', async () => {
    directoryMarket([
      { name: 'toolgate-kit', source: { source: 'git-subdir', url: monoRepo, path: 'plugins/toolgate-kit' } },
      { name: 'escape', source: { source: 'git-subdir', url: monoRepo, path: '../kit-repo' } },
    ]);
    expect((await installPlugin('toolgate-kit@m', o, async () => true))?.installed.path).toBe(cached());
    expect(existsSync(path.join(cached(), 'commands', 'greet.md'))).toBe(true);
    await expect(installPlugin('escape@m', o, async () => true)).rejects.toThrow(/no plugin named "escape"/);
  });

  it('declined: nothing is copied and the clone is removed', async () => {
    directoryMarket([{ name: 'toolgate-kit', source: { source: 'url', url: kitRepo } }]);
    expect(await installPlugin('toolgate-kit@m', o, async () => false)).toBeUndefined();
    expect(existsSync(cached())).toBe(false);
    expect(readdirSync(path.join(pluginsDir(o), 'sources', 'm'))).toEqual([]);
  });
});
