/**
 * Skills and custom slash commands on disk, as Claude Code lays them out: `.claude/skills/<name>/SKILL.md` and
 * `.claude/commands/**\/*.md`, in the project (setting source `project`) and in the user's folder (`user`).
 *
 * Start-up pays one readdir per folder (the commands folder recursively) and one stat per skill: names, files and
 * sizes. Contents are read when something needs them (`readCommandFile`): the Skill tool's description, a listing,
 * an invocation. A SKILL.md or command file that is not a regular file, or is larger than `MAX_COMMAND_FILE_BYTES`,
 * is skipped with a warning naming it.
 *
 * Names: a skill is its folder's name; a command is its path under `commands/` without `.md`, folders joined with
 * `:` (`frontend/test.md` → `frontend:test`, as Claude Code names them). When two share a name, a skill beats a
 * command and the user's folder beats the project's (Claude Code 2.1: "personal overrides project").
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseCommandMarkdown, type CommandFrontmatter } from './command-frontmatter.js';
import type { SettingSourceName } from './load-settings.js';

export type { CommandFrontmatter } from './command-frontmatter.js';

/** A SKILL.md or command file larger than this is not loaded (its whole text would go into the conversation). */
export const MAX_COMMAND_FILE_BYTES = 256 * 1024;

export type CommandKind = 'skill' | 'command';
/** Which folder a skill or command came from. */
export type CommandScope = 'project' | 'user' | 'plugin';

export interface CommandFile {
  readonly kind: CommandKind;
  /** What `/name` invokes. */
  readonly name: string;
  readonly scope: CommandScope;
  /** The SKILL.md or the command's `.md` (absolute). */
  readonly file: string;
  /** A skill's folder (the files it points to are relative to it); a command's own folder. */
  readonly baseDir: string;
  /** For a command in a subfolder: the folders, as Claude Code shows them (`project:frontend`); a plugin's name. */
  readonly namespace?: string;
  /** A plugin's folder (`${CLAUDE_PLUGIN_ROOT}`): the file was found inside it, and is read only while it stays there. */
  readonly pluginRoot?: string;
  /**
   * The project's real folder, for the project's own files: found inside it, read only while they stay there. A
   * cloned repository's link to a file of the person's would put that file into the conversation unasked.
   */
  readonly within?: string;
}

/** A plugin's skills and commands: its name (their namespace), its real folder, and its parts' folders or files. */
export interface PluginCommandRoots {
  readonly name: string;
  readonly root: string;
  readonly commands: readonly string[];
  readonly skills: readonly string[];
}

export interface CommandFileContent {
  readonly frontmatter: CommandFrontmatter;
  /** The text after the frontmatter. */
  readonly body: string;
  /** Frontmatter problems (the file loads with what could be read). */
  readonly warnings: readonly string[];
}

export interface DiscoverCommandFilesOptions {
  /** The project root whose `.claude/` is read. */
  readonly projectDir: string;
  /** Default: `os.homedir()`. */
  readonly homeDir?: string;
  /** Which setting sources are on (`project` → project skills and commands, `user` → the user's). Default: all. */
  readonly sources?: readonly SettingSourceName[];
  /** Plugins' parts: `/plugin:name`, below the project's and the user's own of the same name. */
  readonly plugins?: readonly PluginCommandRoots[];
}

export interface DiscoveredCommandFiles {
  /** By name (each name once, after precedence). */
  readonly files: readonly CommandFile[];
  readonly warnings: readonly string[];
}

export function discoverCommandFiles(options: DiscoverCommandFilesOptions): DiscoveredCommandFiles {
  const wanted = options.sources === undefined ? undefined : new Set(options.sources);
  const warnings: string[] = [];
  // Lowest precedence first: a later entry of the same name replaces an earlier one.
  const found: CommandFile[] = [];
  for (const plugin of options.plugins ?? []) found.push(...pluginCommands(plugin, warnings));
  const roots: { scope: CommandScope; dir: string }[] = [];
  if (wanted === undefined || wanted.has('project')) roots.push({ scope: 'project', dir: path.join(path.resolve(options.projectDir), '.claude') });
  if (wanted === undefined || wanted.has('user')) roots.push({ scope: 'user', dir: path.join(path.resolve(options.homeDir ?? os.homedir()), '.claude') });
  // A project inside the home folder's `.claude` (or the home folder itself as the project) is read once.
  const seen = new Set<string>();
  const unique = roots.filter((r) => !seen.has(r.dir) && (seen.add(r.dir), true));
  for (const root of unique) found.push(...confined(root.scope, options.projectDir, commandsIn(root.scope, path.join(root.dir, 'commands'), warnings), warnings));
  for (const root of unique) found.push(...confined(root.scope, options.projectDir, skillsIn(root.scope, path.join(root.dir, 'skills'), warnings), warnings));
  const byName = new Map<string, CommandFile>();
  for (const f of found) byName.set(f.name, f);
  const files = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { files, warnings };
}

/** The project's own files that resolve inside the project, each marked to be read only while it does (others as they are). */
function confined(scope: CommandScope, projectDir: string, files: CommandFile[], warnings: string[]): CommandFile[] {
  if (scope !== 'project' || files.length === 0) return files;
  const within = realOrUndefined(path.resolve(projectDir));
  return files.flatMap((f) => {
    const real = realOrUndefined(f.file);
    if (within === undefined || real === undefined || !real.startsWith(within + path.sep)) {
      warnings.push(`${f.file}: leads outside the project (a symlink); not loaded`);
      return [];
    }
    return [{ ...f, within }];
  });
}

function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** A plugin's commands and skills, each named `<plugin>:<name>`; a file that resolves outside the plugin is left out. */
function pluginCommands(plugin: PluginCommandRoots, warnings: string[]): CommandFile[] {
  const out: CommandFile[] = [];
  for (const part of plugin.commands) {
    const single = part.endsWith('.md') && usableFile(part, warnings, false);
    const files = single ? [{ kind: 'command' as const, name: path.basename(part, '.md'), scope: 'plugin' as const, file: part, baseDir: path.dirname(part) }] : commandsIn('plugin', part, warnings);
    out.push(...files);
  }
  for (const part of plugin.skills) out.push(...skillsIn('plugin', part, warnings));
  const inside = (file: string) => {
    const real = (() => {
      try {
        return realpathSync(file);
      } catch {
        return undefined;
      }
    })();
    return real !== undefined && real.startsWith(plugin.root + path.sep);
  };
  return out.flatMap((f) => {
    if (!inside(f.file)) {
      warnings.push(`${f.file}: leads outside the plugin ${plugin.name} (a symlink); not loaded`);
      return [];
    }
    return [{ ...f, name: `${plugin.name}:${f.name}`, namespace: f.namespace ? `${plugin.name}:${f.namespace}` : plugin.name, pluginRoot: plugin.root }];
  });
}

function skillsIn(scope: CommandScope, dir: string, warnings: string[]): CommandFile[] {
  const out: CommandFile[] = [];
  for (const entry of listDir(dir, false, warnings)) {
    if (entry.name.startsWith('.') || /\s/.test(entry.name)) continue;
    if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
    const baseDir = path.join(dir, entry.name);
    const file = path.join(baseDir, 'SKILL.md');
    if (usableFile(file, warnings, true)) out.push({ kind: 'skill', name: entry.name, scope, file, baseDir });
  }
  return out;
}

function commandsIn(scope: CommandScope, dir: string, warnings: string[]): CommandFile[] {
  const out: CommandFile[] = [];
  for (const entry of listDir(dir, true, warnings)) {
    if (!entry.name.endsWith('.md') || entry.isDirectory()) continue;
    const parent = (entry as Dirent & { parentPath?: string; path?: string }).parentPath ?? (entry as { path?: string }).path ?? dir;
    const file = path.join(parent, entry.name);
    const folders = path.relative(dir, parent).split(path.sep).filter((p) => p !== '');
    // Hidden folders (an editor's or a tool's own) hold no commands.
    if (folders.some((f) => f.startsWith('.')) || entry.name.startsWith('.')) continue;
    const base = entry.name.slice(0, -'.md'.length);
    const name = [...folders, base].join(':');
    if (base === '' || /\s/.test(name)) continue;
    if (!usableFile(file, warnings, false)) continue;
    out.push({ kind: 'command', name, scope, file, baseDir: parent, ...(folders.length > 0 ? { namespace: folders.join(':') } : {}) });
  }
  return out;
}

function listDir(dir: string, recursive: boolean, warnings: string[]): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true, recursive });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') warnings.push(`${dir}: could not be listed (${(error as Error).message}); its skills or commands are not loaded`);
    return [];
  }
}

/** A regular file (through symlinks) within the size cap; anything else is skipped, with a warning when it exists. */
function usableFile(file: string, warnings: string[], missingIsQuiet: boolean): boolean {
  let info;
  try {
    info = statSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(missingIsQuiet && (code === 'ENOENT' || code === 'ENOTDIR'))) warnings.push(`${file}: skipped (${(error as Error).message})`);
    return false;
  }
  const problem = fileProblem(info);
  if (problem) warnings.push(`${file}: skipped (${problem})`);
  return problem === undefined;
}

function fileProblem(info: { isFile(): boolean; size: number }): string | undefined {
  if (!info.isFile()) return 'not a regular file';
  if (info.size > MAX_COMMAND_FILE_BYTES) return `${info.size} bytes, more than the ${MAX_COMMAND_FILE_BYTES}-byte limit`;
  return undefined;
}

/** Reads and parses one file (checked again: it may have changed since discovery). Throws with the file's name. */
export async function readCommandFile(entry: Pick<CommandFile, 'file' | 'pluginRoot' | 'within'>): Promise<CommandFileContent> {
  // A plugin's (or the project's) file is checked again: a symlink inside it may have been pointed elsewhere since.
  const root = entry.pluginRoot ?? entry.within;
  if (root !== undefined && !(await realpath(entry.file).catch(() => '')).startsWith(root + path.sep)) {
    throw new Error(`${entry.file}: leads outside its ${entry.pluginRoot !== undefined ? 'plugin' : 'project'} (a symlink)`);
  }
  const info = await stat(entry.file).catch((error: Error) => {
    throw new Error(`${entry.file}: ${error.message}`);
  });
  const problem = fileProblem(info);
  if (problem) throw new Error(`${entry.file}: ${problem}`);
  const text = await readFile(entry.file, 'utf8');
  return parseCommandMarkdown(text, entry.file);
}
