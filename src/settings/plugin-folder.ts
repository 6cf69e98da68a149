/**
 * One plugin folder in Claude Code's plugin format, read and checked: `.claude-plugin/plugin.json` (optional: without
 * it the folder's name is the plugin's), and its parts — `commands/`, `agents/`, `skills/`, `hooks/hooks.json`,
 * `.mcp.json`, or the paths the manifest names instead (`commands`, `agents`, `skills`, `hooks`, `mcpServers`: a
 * `./` path, a list of them, or — for `hooks` and `mcpServers` — the object itself).
 *
 * A plugin is files from elsewhere (docs/security.md, "Plugins"). What it names is confined to its folder: a path
 * must start with `./` and may not climb out with `..`, and every file read — a part named in the manifest, a default
 * folder, a command, agent or skill file inside them — must resolve, symlinks followed, inside the folder's real
 * path; anything else is left out with a warning. A plugin's `settings.json` is not read: a plugin never changes
 * permissions. `${CLAUDE_PLUGIN_ROOT}` is filled in here in hooks and MCP server entries — a shell command keeps it
 * as a variable its environment sets (agent/runtime-settings.ts), never the path as text (`hooksWithPluginRoot`);
 * command and skill text gets it when rendered (agent/command-render.ts, quoted inside `!` commands).
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseConfigJson, readConfigText } from '../tool/read-config-file.js';
import { shellQuotingMap } from '../tools/shared/shell-word.js';

/** A plugin's name: a word that is safe in a namespace (`/name:cmd`), an MCP tool name and a folder name. */
export const PLUGIN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface PluginFolder {
  readonly name: string;
  /** The folder's real path (symlinks resolved). */
  readonly root: string;
  readonly version?: string;
  readonly description?: string;
  /** Folders of command files, or single `.md` files (real paths inside `root`). */
  readonly commands: readonly string[];
  /** Folders holding `<skill>/SKILL.md`. */
  readonly skills: readonly string[];
  /** Folders of agent files, or single `.md` files. */
  readonly agents: readonly string[];
  /** Raw hooks objects (the value of a `hooks` key), `${CLAUDE_PLUGIN_ROOT}` replaced, with the file they came from. */
  readonly hooks: readonly { readonly file: string; readonly hooks: unknown }[];
  /** Raw `{ mcpServers: {…} }` objects, `${CLAUDE_PLUGIN_ROOT}` replaced, with their file. */
  readonly mcpServers: readonly { readonly file: string; readonly json: unknown }[];
}

export interface ReadPluginResult {
  readonly plugin?: PluginFolder;
  /** Why the plugin cannot load at all. */
  readonly errors: readonly string[];
  /** Parts left out, fields ignored. */
  readonly warnings: readonly string[];
}

const COMPONENT_KEYS = ['commands', 'agents', 'skills', 'hooks', 'mcpServers'] as const;
const KNOWN_KEYS = new Set(['name', 'version', 'description', 'author', 'homepage', 'repository', 'license', 'keywords', '$schema', ...COMPONENT_KEYS]);
const UNSUPPORTED_KEYS = new Set(['outputStyles', 'lspServers', 'monitors', 'userConfig', 'channels', 'settings', 'bin']);

/** Whether `file` (followed through symlinks) is `root` or inside it; `root` is a real path. */
export function isInside(root: string, file: string): boolean {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return false;
  }
  return real === root || real.startsWith(root + path.sep);
}

export function readPluginFolder(dir: string): ReadPluginResult {
  const errors: string[] = [];
  const warnings: string[] = [];
  let root: string;
  try {
    root = realpathSync(path.resolve(dir));
    if (!statSync(root).isDirectory()) return { errors: [`${dir}: not a folder`], warnings };
  } catch (error) {
    return { errors: [`${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`], warnings };
  }
  const manifestFile = path.join(root, '.claude-plugin', 'plugin.json');
  let manifest: Record<string, unknown> = {};
  if (existsSync(manifestFile) || isSymlinkOrPresent(manifestFile)) {
    const json = readJsonInside(root, manifestFile, errors);
    if (json === undefined) return { errors, warnings };
    if (!isObject(json)) return { errors: [`${manifestFile}: must be a JSON object`], warnings };
    manifest = json;
  }
  const name = manifest.name ?? path.basename(root);
  if (typeof name !== 'string' || !PLUGIN_NAME.test(name)) {
    return { errors: [`${manifestFile}: "name" must be letters, digits, - _ . (at most 64, starting with a letter or digit); got ${JSON.stringify(name)}`], warnings };
  }
  for (const key of Object.keys(manifest)) {
    if (UNSUPPORTED_KEYS.has(key)) warnings.push(`${manifestFile}: "${key}" is not supported by toolgate; ignored`);
    else if (!KNOWN_KEYS.has(key)) warnings.push(`${manifestFile}: unknown key "${key}", ignored`);
  }
  if (existsSync(path.join(root, 'settings.json'))) warnings.push(`${path.join(root, 'settings.json')}: a plugin's settings are not read (a plugin never changes permissions)`);

  const ctx: PartContext = { root, manifestFile, errors, warnings };
  const commands = folderParts(ctx, manifest.commands, 'commands');
  const agents = folderParts(ctx, manifest.agents, 'agents');
  const skills = folderParts(ctx, manifest.skills, 'skills');
  const hooks = jsonParts(ctx, manifest.hooks, 'hooks', path.join('hooks', 'hooks.json')).map((p) => ({ file: p.file, hooks: isObject(p.json) && 'hooks' in p.json ? p.json.hooks : p.json }));
  const mcpServers = jsonParts(ctx, manifest.mcpServers, 'mcpServers', '.mcp.json').map((p) => ({ file: p.file, json: isObject(p.json) && 'mcpServers' in p.json ? p.json : { mcpServers: p.json } }));
  if (errors.length > 0) return { errors, warnings };
  return {
    plugin: {
      name,
      root,
      ...(typeof manifest.version === 'string' ? { version: manifest.version } : {}),
      ...(typeof manifest.description === 'string' ? { description: manifest.description } : {}),
      commands,
      skills,
      agents,
      hooks: hooks.map((h) => ({ file: h.file, hooks: hooksWithPluginRoot(h.hooks, root) })),
      mcpServers: mcpServers.map((m) => ({ file: m.file, json: withPluginRoot(m.json, root) })),
    },
    errors,
    warnings,
  };
}

interface PartContext {
  readonly root: string;
  readonly manifestFile: string;
  readonly errors: string[];
  readonly warnings: string[];
}

function isSymlinkOrPresent(file: string): boolean {
  try {
    statSync(file);
    return true;
  } catch (error) {
    // A dangling symlink is still "there": reading it reports why.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/**
 * A manifest path: `./x` inside the plugin (no `..` part), resolved; undefined (and an error) otherwise. An error, not
 * a warning: a plugin that points outside itself is not loaded at all.
 */
function manifestPath(ctx: PartContext, key: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || !value.startsWith('./')) {
    ctx.errors.push(`${ctx.manifestFile}: "${key}" paths must be strings starting with "./" (got ${JSON.stringify(value)})`);
    return undefined;
  }
  if (value.split(/[\\/]/).includes('..')) {
    ctx.errors.push(`${ctx.manifestFile}: "${key}" path ${JSON.stringify(value)} climbs out of the plugin with ".."`);
    return undefined;
  }
  const abs = path.resolve(ctx.root, value);
  if (existsSync(abs) && !isInside(ctx.root, abs)) {
    ctx.errors.push(`${ctx.manifestFile}: "${key}" path ${JSON.stringify(value)} leads outside the plugin (a symlink)`);
    return undefined;
  }
  return abs;
}

/** The default folder (when it resolves inside the plugin) and the manifest's own paths, which add to it. */
function folderParts(ctx: PartContext, declared: unknown, key: 'commands' | 'agents' | 'skills'): string[] {
  const out: string[] = [];
  const byDefault = path.join(ctx.root, key);
  if (isSymlinkOrPresent(byDefault)) {
    if (isInside(ctx.root, byDefault)) out.push(realpathSync(byDefault));
    else ctx.warnings.push(`${byDefault}: leads outside the plugin (a symlink); its ${key} are not loaded`);
  }
  if (declared === undefined) return out;
  for (const value of Array.isArray(declared) ? declared : [declared]) {
    const abs = manifestPath(ctx, key, value);
    if (abs === undefined) continue;
    if (!existsSync(abs)) {
      ctx.warnings.push(`${ctx.manifestFile}: "${key}" path ${JSON.stringify(value)} does not exist`);
      continue;
    }
    const real = realpathSync(abs);
    if (!out.includes(real)) out.push(real);
  }
  return out;
}

/** A JSON part: the manifest's object itself, the files it names, or the default file. */
function jsonParts(ctx: PartContext, declared: unknown, key: 'hooks' | 'mcpServers', defaultFile: string): { file: string; json: unknown }[] {
  if (declared === undefined) {
    const file = path.join(ctx.root, defaultFile);
    if (!isSymlinkOrPresent(file)) return [];
    const json = readJsonInside(ctx.root, file, ctx.errors);
    return json === undefined ? [] : [{ file, json }];
  }
  if (isObject(declared)) return [{ file: ctx.manifestFile, json: declared }];
  const out: { file: string; json: unknown }[] = [];
  for (const value of Array.isArray(declared) ? declared : [declared]) {
    const abs = manifestPath(ctx, key, value);
    if (abs === undefined) continue;
    const json = readJsonInside(ctx.root, abs, ctx.errors);
    if (json !== undefined) out.push({ file: abs, json });
  }
  return out;
}

function readJsonInside(root: string, file: string, errors: string[]): unknown {
  if (!isInside(root, file)) {
    errors.push(`${file}: leads outside the plugin (a symlink), or cannot be resolved`);
    return undefined;
  }
  const read = readConfigText(file);
  if (read.kind !== 'ok') {
    errors.push(`${file}: ${read.kind === 'missing' ? 'not found' : read.message}`);
    return undefined;
  }
  const parsed = parseConfigJson(read.text);
  if (!parsed.ok) {
    errors.push(`${file}: ${parsed.problem === 'depth' ? parsed.message : `invalid JSON (${(parsed.error as Error).message})`}`);
    return undefined;
  }
  return parsed.json;
}

const PLUGIN_ROOT_VARIABLE = /\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT\b/g;

/**
 * A hooks object with `${CLAUDE_PLUGIN_ROOT}` filled in. Into a shell command (no `args`, not PowerShell) the folder's
 * path is never pasted as text — a `--plugin-dir` path holding a quote, `$`, `` ` `` or `;` would be run: the variable
 * stays for bash to expand from the hook's environment (runtime-settings.ts sets it), written `"${CLAUDE_PLUGIN_ROOT}"`
 * where it stood unquoted and `'"${CLAUDE_PLUGIN_ROOT}"'` inside single quotes, so that the path is one word wherever
 * it stood. An expansion's result is never read as shell syntax, so a wrong guess of the quoting breaks the path at
 * worst, never runs it. Exec-form commands, URLs and the rest get the path itself (no shell reads them).
 */
function hooksWithPluginRoot(hooks: unknown, root: string): unknown {
  if (!isObject(hooks)) return withPluginRoot(hooks, root);
  const handler = (h: unknown): unknown => {
    if (!isObject(h) || (h.type !== undefined && h.type !== 'command') || h.args !== undefined || h.shell === 'powershell' || typeof h.command !== 'string') return withPluginRoot(h, root);
    const map = shellQuotingMap(h.command);
    const command = h.command.replace(PLUGIN_ROOT_VARIABLE, (_m, offset: number) => (map[offset] === 'double' ? '${CLAUDE_PLUGIN_ROOT}' : map[offset] === 'single' ? `'"\${CLAUDE_PLUGIN_ROOT}"'` : '"${CLAUDE_PLUGIN_ROOT}"'));
    return { ...(withPluginRoot(h, root) as Record<string, unknown>), command };
  };
  const group = (g: unknown): unknown => (isObject(g) && Array.isArray(g.hooks) ? { ...g, hooks: g.hooks.map(handler) } : withPluginRoot(g, root));
  return Object.fromEntries(Object.entries(hooks).map(([event, groups]) => [event, Array.isArray(groups) ? groups.map(group) : groups]));
}

/** Every string of `value` with `${CLAUDE_PLUGIN_ROOT}` (and `$CLAUDE_PLUGIN_ROOT`) replaced by `root`. */
function withPluginRoot(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.replace(PLUGIN_ROOT_VARIABLE, () => root);
  if (Array.isArray(value)) return value.map((v) => withPluginRoot(v, root));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withPluginRoot(v, root)]));
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
