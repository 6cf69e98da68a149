/**
 * Plugins from marketplaces, as Claude Code declares them in settings: `extraKnownMarketplaces` (a local folder, a git
 * repository URL, a GitHub `owner/repo`) and `enabledPlugins` (`"plugin@marketplace": true`). A marketplace is a
 * folder with `.claude-plugin/marketplace.json` listing plugins by name and source (a `./` folder inside it).
 *
 * Installing copies the plugin into toolgate's state folder (`<state>/plugins/cache/<marketplace>/<plugin>`) and
 * records it in `<state>/plugins/installed.json`; only an installed plugin is ever loaded from settings, so a
 * settings file (a repository's included) can turn on only what a person installed — and installing needs the person
 * (or an explicit flag headless), after being shown what the plugin contains (`describePlugin`). A git marketplace is
 * cloned with the one hardened git runner (tool/git-runner.ts), transports `file` and `https` only.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from '../tool/crypto.js';
import { runGit } from '../tool/git-runner.js';
import { isInlineJson, parseConfigJson, readConfigText } from '../tool/read-config-file.js';
import { stateDirectory } from '../tool/state-directory.js';
import { editSettingsFile } from './grants.js';
import { loadSettings, PROJECT_SOURCES, type SettingSourceName } from './load-settings.js';
import { isInside, PLUGIN_NAME, readPluginFolder, type PluginFolder } from './plugin-folder.js';

export type MarketplaceSource =
  | { readonly source: 'directory'; readonly path: string }
  | { readonly source: 'file'; readonly path: string }
  | { readonly source: 'git'; readonly url: string; readonly ref?: string };

/** Where a marketplace was found: its root (plugin sources resolve from it) and its `marketplace.json`. */
export interface MarketplaceLocation {
  readonly folder: string;
  readonly file: string;
}

export interface PluginStateOptions {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homeDir: string;
  readonly sources?: readonly SettingSourceName[];
  readonly settingsFiles?: readonly string[];
  readonly settingsObject?: Record<string, unknown>;
}

export interface InstalledPlugin {
  readonly path: string;
  readonly marketplace: string;
  readonly version?: string;
  readonly installedAt: string;
}

export interface PluginSettings {
  /** `plugin@marketplace` → on or off, from the highest level that names it. */
  readonly enabled: ReadonlyMap<string, boolean>;
  readonly marketplaces: ReadonlyMap<string, MarketplaceSource>;
  readonly warnings: readonly string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function pluginsDir(o: Pick<PluginStateOptions, 'env' | 'homeDir'>): string {
  return path.join(stateDirectory(o.env as NodeJS.ProcessEnv, o.homeDir), 'plugins');
}

/** What the settings say about plugins and marketplaces, merged by precedence. */
export function pluginSettingsOf(o: PluginStateOptions): PluginSettings {
  const loaded = loadSettings({ cwd: o.cwd, homeDir: o.homeDir, ...(o.sources ? { sources: o.sources } : {}), flagSettingsFiles: [...(o.settingsFiles ?? []), ...(o.settingsObject && Object.keys(o.settingsObject).length > 0 ? [JSON.stringify(o.settingsObject)] : [])] });
  const enabled = new Map<string, boolean>();
  const marketplaces = new Map<string, MarketplaceSource>();
  const warnings: string[] = [];
  for (const level of loaded.pluginsBySource) {
    if (level.enabledPlugins !== undefined) {
      if (!isObject(level.enabledPlugins)) warnings.push(`${level.file}: "enabledPlugins" must be an object of "plugin@marketplace": true|false`);
      else for (const [ref, on] of Object.entries(level.enabledPlugins)) if (typeof on === 'boolean' && !enabled.has(ref)) enabled.set(ref, on);
    }
  }
  // A marketplace the person's own levels name keeps its source: a repository's settings may add marketplaces, never
  // re-point one (`fmt@m` would install the repository's fmt under the person's "m"). So those levels are read last.
  const byTrust = [...loaded.pluginsBySource.filter((l) => !PROJECT_SOURCES.has(l.source)), ...loaded.pluginsBySource.filter((l) => PROJECT_SOURCES.has(l.source))];
  for (const level of byTrust) {
    if (level.extraKnownMarketplaces !== undefined && isObject(level.extraKnownMarketplaces)) {
      for (const [name, entry] of Object.entries(level.extraKnownMarketplaces)) {
        const source = marketplaceSource(entry, level.file, o.cwd);
        const known = marketplaces.get(name);
        if (known !== undefined) {
          if (typeof source !== 'string' && JSON.stringify(source) !== JSON.stringify(known)) warnings.push(`${level.file}: marketplace ${JSON.stringify(name)} is already declared with another source by a level above the repository's; this one is ignored`);
          continue;
        }
        if (typeof source === 'string') warnings.push(source);
        else if (!PLUGIN_NAME.test(name)) warnings.push(`${level.file}: marketplace name ${JSON.stringify(name)} is not a plain word`);
        else marketplaces.set(name, source);
      }
    }
  }
  return { enabled, marketplaces, warnings };
}

function marketplaceSource(entry: unknown, file: string, cwd: string): MarketplaceSource | string {
  const s = isObject(entry) && isObject(entry.source) ? entry.source : undefined;
  const base = isInlineJson(file) ? cwd : path.dirname(file);
  const ref = gitRef(s?.ref);
  if (typeof ref === 'string' && ref.startsWith('!')) return `${file}: ${ref.slice(1)}`;
  if (s?.source === 'directory' && typeof s.path === 'string') return { source: 'directory', path: path.resolve(base, s.path) };
  if (s?.source === 'file' && typeof s.path === 'string') return { source: 'file', path: path.resolve(base, s.path) };
  if (s?.source === 'git' && typeof s.url === 'string') return { source: 'git', url: s.url, ...(ref !== undefined ? { ref } : {}) };
  if (s?.source === 'github' && typeof s.repo === 'string' && /^[\w.-]+\/[\w.-]+$/.test(s.repo)) return { source: 'git', url: `https://github.com/${s.repo}.git`, ...(ref !== undefined ? { ref } : {}) };
  return `${file}: a marketplace's "source" must be { "source": "directory", "path" }, { "source": "file", "path" }, { "source": "git", "url" } or { "source": "github", "repo" }`;
}

/** A branch or tag to clone (`ref`): a plain name, never an option; `!why` when it is not one. */
function gitRef(ref: unknown): string | undefined {
  if (ref === undefined) return undefined;
  if (typeof ref === 'string' && /^[\w][\w./-]*$/.test(ref) && !ref.split('/').includes('..')) return ref;
  return `!"ref" must be a branch or tag name (got ${JSON.stringify(ref)})`;
}

export function readInstalled(o: Pick<PluginStateOptions, 'env' | 'homeDir'>): Record<string, InstalledPlugin> {
  const read = readConfigText(path.join(pluginsDir(o), 'installed.json'));
  if (read.kind !== 'ok') return {};
  const parsed = parseConfigJson(read.text);
  return parsed.ok && isObject(parsed.json) && isObject(parsed.json.plugins) ? (parsed.json.plugins as Record<string, InstalledPlugin>) : {};
}

function writeInstalled(o: Pick<PluginStateOptions, 'env' | 'homeDir'>, plugins: Record<string, InstalledPlugin>): void {
  const file = path.join(pluginsDir(o), 'installed.json');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${randomUUID()}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify({ plugins }, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** The folders of the plugins the settings enable that are installed; an enabled one that is not installed is said. */
export function enabledInstalledPlugins(o: PluginStateOptions): { folders: string[]; warnings: string[] } {
  const settings = pluginSettingsOf(o);
  const warnings = [...settings.warnings];
  if (![...settings.enabled.values()].some(Boolean)) return { folders: [], warnings };
  const installed = readInstalled(o);
  const cache = path.join(pluginsDir(o), 'cache');
  const folders: string[] = [];
  for (const [ref, on] of settings.enabled) {
    if (!on) continue;
    const entry = installed[ref];
    // Only a folder under the cache is loaded: installed.json is state, but a path in it is not trusted to point anywhere.
    if (!entry || typeof entry.path !== 'string' || !path.resolve(entry.path).startsWith(cache + path.sep)) {
      warnings.push(`plugin ${ref} is enabled but not installed (toolgate plugin install ${ref})`);
      continue;
    }
    folders.push(entry.path);
  }
  return { folders, warnings };
}

/** A marketplace: a local folder or file as it is, a git one cloned afresh into the state folder. */
export async function fetchMarketplace(name: string, source: MarketplaceSource, o: PluginStateOptions): Promise<MarketplaceLocation> {
  if (source.source === 'directory') return { folder: source.path, file: path.join(source.path, '.claude-plugin', 'marketplace.json') };
  // A marketplace.json file: its plugins' `./` sources resolve from the folder holding its `.claude-plugin/` (or its own).
  if (source.source === 'file') {
    const dir = path.dirname(source.path);
    return { folder: path.basename(dir) === '.claude-plugin' ? path.dirname(dir) : dir, file: source.path };
  }
  const target = path.join(pluginsDir(o), 'marketplaces', name);
  await cloneInto(target, source.url, source.ref, o);
  return { folder: target, file: path.join(target, '.claude-plugin', 'marketplace.json') };
}

/**
 * Clones `url` (at `ref`) into `target`, replacing what was there, through the one hardened git runner: transports
 * `file` and `https` only; `ssh`, `ext::` and scp-like URLs are refused before git runs.
 */
async function cloneInto(target: string, url: string, ref: string | undefined, o: PluginStateOptions): Promise<void> {
  if (/^(ssh|ext|git):|^[\w.-]+@[\w.-]+:/.test(url)) throw new Error(`${url}: only https URLs and local repositories are fetched`);
  const tmp = `${target}.${randomUUID()}.tmp`;
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  try {
    // `--` ends the options: a URL starting with `-` is a URL, never an option.
    await runGit(['clone', '--depth=1', '--no-recurse-submodules', '--quiet', ...(ref !== undefined ? [`--branch=${ref}`] : []), '--', url, tmp], { cwd: path.dirname(target), env: o.env as NodeJS.ProcessEnv, transports: ['file', 'https'], timeoutMs: 120_000 });
  } catch (error) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw error;
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(tmp, target);
}

export interface MarketplaceEntry {
  readonly name: string;
  readonly description?: string;
  /** The plugin's folder inside the marketplace (a `./` source). */
  readonly folder?: string;
  /** A plugin kept in a git repository of its own (`url`, `github`, `git-subdir` sources): cloned when installed. */
  readonly git?: { readonly url: string; readonly ref?: string; readonly path?: string };
}

/**
 * A marketplace's `marketplace.json`: its plugins whose source is a `./` folder inside the marketplace, or a git
 * repository (`{ "source": "url", "url" }`, `{ "source": "github", "repo" }`, `{ "source": "git-subdir", "url",
 * "path" }`, each with an optional `ref`). Other kinds (`npm`) are skipped with a warning.
 */
export function readMarketplace(where: MarketplaceLocation): { entries: MarketplaceEntry[]; warnings: string[] } {
  const root = fs.realpathSync(where.folder);
  const file = where.file;
  const read = readConfigText(file);
  if (read.kind !== 'ok') throw new Error(`${file}: ${read.kind === 'missing' ? 'not found' : read.message}`);
  const parsed = parseConfigJson(read.text);
  if (!parsed.ok || !isObject(parsed.json) || !Array.isArray(parsed.json.plugins)) throw new Error(`${file}: must be a JSON object with a "plugins" list`);
  const entries: MarketplaceEntry[] = [];
  const warnings: string[] = [];
  const base = isObject(parsed.json.metadata) && typeof parsed.json.metadata.pluginRoot === 'string' ? parsed.json.metadata.pluginRoot : '.';
  for (const p of parsed.json.plugins as unknown[]) {
    if (!isObject(p) || typeof p.name !== 'string' || !PLUGIN_NAME.test(p.name)) {
      warnings.push(`${file}: a plugin entry without a plain-word "name" is skipped`);
      continue;
    }
    const description = typeof p.description === 'string' ? { description: p.description } : {};
    if (isObject(p.source)) {
      const git = gitPluginSource(p.source);
      if (typeof git === 'string') warnings.push(`${file}: plugin ${p.name}: ${git}`);
      else entries.push({ name: p.name, git, ...description });
      continue;
    }
    const src = typeof p.source === 'string' ? p.source : undefined;
    if (src === undefined || src.split(/[\\/]/).includes('..')) {
      warnings.push(`${file}: plugin ${p.name}: its source must be a "./" folder inside the marketplace or a git repository`);
      continue;
    }
    const abs = path.resolve(root, base, src);
    if (!isInside(root, abs)) {
      warnings.push(`${file}: plugin ${p.name}: its folder leads outside the marketplace`);
      continue;
    }
    entries.push({ name: p.name, folder: abs, ...description });
  }
  return { entries, warnings };
}

/** A plugin entry's git source, or why it cannot be used. */
function gitPluginSource(s: Record<string, unknown>): NonNullable<MarketplaceEntry['git']> | string {
  const ref = gitRef(s.ref);
  if (typeof ref === 'string' && ref.startsWith('!')) return ref.slice(1);
  const at = ref !== undefined ? { ref } : {};
  if (s.source === 'url' && typeof s.url === 'string') return { url: s.url, ...at };
  if (s.source === 'github' && typeof s.repo === 'string' && /^[\w.-]+\/[\w.-]+$/.test(s.repo)) return { url: `https://github.com/${s.repo}.git`, ...at };
  if (s.source === 'git-subdir' && typeof s.url === 'string' && typeof s.path === 'string') {
    if (path.isAbsolute(s.path) || s.path.split(/[\\/]/).includes('..')) return `"path" ${JSON.stringify(s.path)} must stay inside the repository`;
    return { url: s.url, path: s.path, ...at };
  }
  return `source kind ${JSON.stringify(s.source)} is not supported (a "./" folder, "url", "github" or "git-subdir")`;
}

export function splitRef(ref: string): { plugin: string; marketplace: string } {
  const m = /^([^@]+)@([^@]+)$/.exec(ref);
  if (!m || !PLUGIN_NAME.test(m[1]!) || !PLUGIN_NAME.test(m[2]!)) throw new Error(`"${ref}": name a plugin as plugin@marketplace`);
  return { plugin: m[1]!, marketplace: m[2]! };
}

/** What a plugin would run and add, one line each: shown before it is installed. */
export { describePlugin } from './plugin-describe.js';

/**
 * Installs `plugin@marketplace`: fetch the marketplace, read the plugin (it must load, nothing leading outside it),
 * show what it contains and ask `confirm`; on yes, copy it into the state folder and record it.
 */
export async function installPlugin(ref: string, o: PluginStateOptions, confirm: (plugin: PluginFolder) => Promise<boolean>): Promise<{ installed: InstalledPlugin; plugin: PluginFolder } | undefined> {
  const { plugin: name, marketplace } = splitRef(ref);
  const source = pluginSettingsOf(o).marketplaces.get(marketplace);
  if (!source) throw new Error(`no marketplace named "${marketplace}" in the settings' extraKnownMarketplaces`);
  const entry = readMarketplace(await fetchMarketplace(marketplace, source, o)).entries.find((e) => e.name === name);
  if (!entry) throw new Error(`marketplace ${marketplace} has no plugin named "${name}"`);
  const clone = entry.git ? path.join(pluginsDir(o), 'sources', marketplace, name) : undefined;
  try {
    return await installFrom(await pluginFolderOf(entry, clone, o), { ref, name, marketplace }, o, confirm);
  } finally {
    if (clone !== undefined) fs.rmSync(clone, { recursive: true, force: true });
  }
}

/** The folder an entry's plugin is in: inside the marketplace, or inside its own repository cloned into `clone`. */
async function pluginFolderOf(entry: MarketplaceEntry, clone: string | undefined, o: PluginStateOptions): Promise<string> {
  if (entry.git === undefined || clone === undefined) return entry.folder!;
  await cloneInto(clone, entry.git.url, entry.git.ref, o);
  const folder = path.resolve(clone, entry.git.path ?? '.');
  if (!isInside(fs.realpathSync(clone), folder)) throw new Error(`plugin ${entry.name}: its "path" leads outside its repository`);
  return folder;
}

async function installFrom(
  folder: string,
  { ref, name, marketplace }: { ref: string; name: string; marketplace: string },
  o: PluginStateOptions,
  confirm: (plugin: PluginFolder) => Promise<boolean>,
): Promise<{ installed: InstalledPlugin; plugin: PluginFolder } | undefined> {
  const read = readPluginFolder(folder);
  if (!read.plugin) throw new Error(`plugin ${ref} cannot be loaded: ${read.errors.join('; ')}`);
  const leading = linksOutside(read.plugin.root);
  if (leading.length > 0) throw new Error(`plugin ${ref} cannot be installed: ${leading.join(', ')} lead${leading.length === 1 ? 's' : ''} outside the plugin (a symlink)`);
  if (!(await confirm(read.plugin))) return undefined;
  const target = path.join(pluginsDir(o), 'cache', marketplace, name);
  const tmp = `${target}.${randomUUID()}.tmp`;
  fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
  fs.cpSync(read.plugin.root, tmp, { recursive: true, verbatimSymlinks: true, filter: (src) => path.basename(src) !== '.git' });
  const copied = readPluginFolder(tmp);
  const copiedLeading = copied.plugin ? linksOutside(copied.plugin.root) : [];
  if (!copied.plugin || copiedLeading.length > 0) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw new Error(`plugin ${ref} cannot be loaded once copied: ${[...copied.errors, ...copiedLeading.map((l) => `${l} leads outside the plugin (a symlink)`)].join('; ')}`);
  }
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(tmp, target);
  const installed: InstalledPlugin = { path: target, marketplace, ...(read.plugin.version ? { version: read.plugin.version } : {}), installedAt: new Date().toISOString() };
  writeInstalled(o, { ...readInstalled(o), [ref]: installed });
  return { installed, plugin: read.plugin };
}

/**
 * The symlinks of a plugin's tree (`.git` left out, as the copy leaves it) that resolve outside it, or nowhere. The
 * loaders check what they read, but a hook's or MCP server's script is run, not read: a `bin/fmt.sh` linked into the
 * repository it came from would run whatever that file says on the day, not what was installed and shown.
 */
function linksOutside(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const file = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        if (!isInside(root, file)) out.push(path.relative(root, file));
      } else if (entry.isDirectory()) walk(file);
    }
  };
  walk(root);
  return out;
}

/** `enabledPlugins[ref] = on` in the user's settings file, through the one settings writer. */
export function setPluginEnabled(ref: string, on: boolean, o: Pick<PluginStateOptions, 'homeDir'>): string {
  splitRef(ref);
  const file = path.join(o.homeDir, '.claude', 'settings.json');
  editSettingsFile(file, (settings) => {
    const current = isObject(settings.enabledPlugins) ? settings.enabledPlugins : {};
    settings.enabledPlugins = { ...current, [ref]: on };
    return true;
  });
  return file;
}
