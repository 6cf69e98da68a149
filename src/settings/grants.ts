/**
 * Grants people can manage: allow rules written to a settings file in exactly the text form the loader and the
 * matcher read back, listed with their file and expiry, and revoked by rule text.
 *
 * Files, by destination (the ones Claude Code reads too, so both agents share a grant):
 *   localSettings → `<project>/.claude/settings.local.json`, projectSettings → `<project>/.claude/settings.json`,
 *   userSettings → `~/.claude/settings.json`; `session` is never written (the runtime keeps it in memory).
 * An expiring grant goes to toolgate's twin file instead (`.toolgate/settings.local.json`, `.toolgate/settings.json`,
 * `~/.toolgate/settings.json`), as `permissions.allow` plus `permissions.expires: { "<rule>": "<ISO date>" }`:
 * Claude Code never reads those files, so it can never honour a grant past its expiry. Every other key of a file,
 * and its indentation, is kept; a file that is not valid JSON is never overwritten.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PermissionBehavior, PermissionRuleSource, PermissionRuleValue, PermissionUpdate, PermissionUpdateDestination } from '../tool/permission-types.js';
import { formatPermissionRule, parsePermissionRule, validatePermissionRule } from '../permissions/permission-rule.js';
import { parseExpiry, type PermissionUpdateSink } from '../permissions/permission-updates.js';
import { isRuleExpired } from '../permissions/rule-expiry.js';
import { ensureGitIgnored } from './git-ignore-local.js';
import { loadSettings, type LoadSettingsOptions } from './load-settings.js';
import { parseConfigJson, readConfigText } from '../tool/read-config-file.js';

export type GrantDestination = Exclude<PermissionUpdateDestination, 'session'>;

export interface GrantLocations {
  readonly projectDir: string;
  readonly homeDir?: string;
}

export class GrantError extends Error {
  override readonly name = 'GrantError';
}

/** The file a destination's grants go to (`expiring`: toolgate's twin file). */
export function grantFile(destination: GrantDestination, where: GrantLocations, expiring = false): string {
  const home = where.homeDir ?? os.homedir();
  const dir = expiring ? '.toolgate' : '.claude';
  switch (destination) {
    case 'localSettings':
      return path.join(where.projectDir, dir, 'settings.local.json');
    case 'projectSettings':
      return path.join(where.projectDir, dir, 'settings.json');
    case 'userSettings':
      return path.join(home, dir, 'settings.json');
  }
}

/** Every file a grant of this kind may live in (Claude Code's and toolgate's), for revoking. */
export function grantFiles(where: GrantLocations): { source: PermissionRuleSource; file: string }[] {
  const out: { source: PermissionRuleSource; file: string }[] = [];
  for (const destination of ['localSettings', 'projectSettings', 'userSettings'] as const) {
    out.push({ source: destination, file: grantFile(destination, where) }, { source: destination, file: grantFile(destination, where, true) });
  }
  return out;
}

type Json = Record<string, unknown>;

/**
 * The first symbolic link on the way from `root` (itself not looked at) down to `file`, or undefined. A repository
 * commits its `.claude` folder: a link there would have the writer copy the target's text into the project (a token
 * file read through `settings.local.json`) or write outside it (a linked `.claude`).
 */
function linkBelow(root: string, file: string): string | undefined {
  const rel = path.relative(root, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  let at = root;
  for (const part of rel.split(path.sep)) {
    at = path.join(at, part);
    try {
      if (fs.lstatSync(at).isSymbolicLink()) return at;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Read-modify-write of one settings file, keeping other keys and the file's indentation; atomic rename. `within`: a
 * folder a repository controls (the project) — no symbolic link below it on the way to the file is followed or replaced.
 */
export function editSettingsFile(file: string, mutate: (settings: Json) => boolean, options: { readonly within?: string } = {}): boolean {
  const link = options.within === undefined ? undefined : linkBelow(options.within, file);
  if (link !== undefined) throw new GrantError(`${link} is a symbolic link (the repository's?); ${file} is not read or written through it; not changed`);
  const read = readConfigText(file);
  if (read.kind === 'error') throw new GrantError(`cannot read ${file}: ${read.message}; not changed`);
  const text = read.kind === 'ok' ? read.text : undefined;
  let settings: Json = {};
  if (text !== undefined && text.trim() !== '') {
    const parsed = parseConfigJson(text);
    if (!parsed.ok) {
      const why = parsed.problem === 'depth' ? parsed.message : (parsed.error as Error).message;
      throw new GrantError(`${file} is not valid JSON (${why}); not changed`);
    }
    if (parsed.json === null || typeof parsed.json !== 'object' || Array.isArray(parsed.json)) throw new GrantError(`${file} is not a JSON object; not changed`);
    settings = parsed.json as Json;
  }
  if (!mutate(settings)) return false;
  const indent = text === undefined ? 2 : (/^([ \t]+)"/m.exec(text)?.[1] ?? '  ');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  // A new file is private (it may hold a token); an existing one keeps its mode (a committed .mcp.json stays readable).
  const mode = text === undefined ? 0o600 : fs.statSync(file).mode & 0o777;
  fs.writeFileSync(tmp, `${JSON.stringify(settings, null, indent)}\n`, { mode });
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, file);
  return true;
}

function permissionsOf(settings: Json): Json {
  const p = settings.permissions;
  if (p === undefined) return (settings.permissions = {});
  if (p === null || typeof p !== 'object' || Array.isArray(p)) throw new GrantError('"permissions" is not an object; not changed');
  return p as Json;
}

function ruleList(perms: Json, behavior: PermissionBehavior): string[] {
  const list = perms[behavior];
  if (list === undefined) return (perms[behavior] = []) as string[];
  if (!Array.isArray(list)) throw new GrantError(`"permissions.${behavior}" is not an array; not changed`);
  return list as string[];
}

/** A rule's text for comparison: parsed and formatted, and runs of spaces in unquoted content made one. */
const canonical = (text: string): string => {
  try {
    const v = parsePermissionRule(text);
    const content = v.toolName === 'Bash' && v.ruleContent !== undefined && !/['"\\]/.test(v.ruleContent) ? v.ruleContent.trim().replace(/\s+/g, ' ') : v.ruleContent;
    return formatPermissionRule({ toolName: v.toolName, ...(content !== undefined ? { ruleContent: content } : {}) });
  } catch {
    return text.trim();
  }
};

/** A rule given as text or value → its canonical text, checked as the loader would. */
export function grantRuleText(rule: string | PermissionRuleValue, behavior: PermissionBehavior = 'allow'): string {
  const value = typeof rule === 'string' ? parsePermissionRule(rule) : parsePermissionRule(formatPermissionRule(rule));
  const problems = validatePermissionRule(value, behavior).errors;
  if (problems.length > 0) throw new GrantError(`${formatPermissionRule(value)}: ${problems.join('; ')}`);
  if (behavior === 'allow' && value.ruleContent === undefined && value.toolName === 'Bash') {
    throw new GrantError('refusing to grant all of Bash; grant the command (e.g. "Bash(npm test)")');
  }
  return formatPermissionRule(value);
}

export interface WriteGrantsOptions extends GrantLocations {
  readonly destination: GrantDestination;
  readonly rules: readonly (string | PermissionRuleValue)[];
  readonly behavior?: PermissionBehavior;
  /** ISO date; the engine ignores the rule after it. */
  readonly expiresAt?: string;
}

/**
 * Adds rules to the destination's file (once each). Returns the file and the rule texts written, and for a local
 * settings file in a git repository the exclude file that now keeps it out of commits (settings/git-ignore-local.ts).
 */
export function writeGrants(options: WriteGrantsOptions): { file: string; rules: string[]; gitIgnoredIn?: string } {
  const behavior = options.behavior ?? 'allow';
  const texts = [...new Set(options.rules.map((r) => canonical(grantRuleText(r, behavior))))];
  let expiresAt: string | undefined;
  if (options.expiresAt !== undefined) {
    expiresAt = parseExpiry(options.expiresAt);
    if (expiresAt === undefined) throw new GrantError(`expiry ${JSON.stringify(options.expiresAt)} is not an ISO date`);
    if (behavior !== 'allow') throw new GrantError('only allow rules can expire');
  }
  const file = grantFile(options.destination, options, expiresAt !== undefined);
  const inProject = options.destination !== 'userSettings' ? { within: options.projectDir } : {};
  editSettingsFile(file, (settings) => {
    const perms = permissionsOf(settings);
    const list = ruleList(perms, behavior);
    const have = new Set(list.map(canonical));
    for (const t of texts) if (!have.has(t)) list.push(t);
    if (expiresAt !== undefined) {
      const expires = (perms.expires ??= {}) as Json;
      for (const t of texts) expires[t] = expiresAt;
    }
    return true;
  }, inProject);
  const gitIgnoredIn = options.destination === 'localSettings' ? ensureGitIgnored(file) : undefined;
  return { file, rules: texts, ...(gitIgnoredIn !== undefined ? { gitIgnoredIn } : {}) };
}

/**
 * Removes an allow rule (and its expiry) from the grant files, or from `file` only. `behavior` removes an ask or deny
 * rule instead (the session's `/permissions remove`).
 */
export function revokeGrant(rule: string, options: GrantLocations & { readonly file?: string; readonly behavior?: PermissionBehavior }): { file: string; rule: string }[] {
  const behavior = options.behavior ?? 'allow';
  const target = canonical(rule);
  const files = options.file !== undefined ? [path.resolve(options.file)] : [...new Set(grantFiles(options).map((f) => f.file))];
  const removed: { file: string; rule: string }[] = [];
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    editSettingsFile(file, (settings) => {
      const perms = settings.permissions;
      if (perms === null || typeof perms !== 'object' || Array.isArray(perms)) return false;
      const p = perms as Json;
      let changed = false;
      if (Array.isArray(p[behavior])) {
        const kept = (p[behavior] as unknown[]).filter((r) => !(typeof r === 'string' && canonical(r) === target));
        if (kept.length !== (p[behavior] as unknown[]).length) {
          p[behavior] = kept;
          changed = true;
          removed.push({ file, rule: target });
        }
      }
      if (behavior === 'allow' && p.expires !== null && typeof p.expires === 'object' && !Array.isArray(p.expires)) {
        const expires = p.expires as Json;
        for (const k of Object.keys(expires)) {
          if (canonical(k) === target) {
            delete expires[k];
            changed = true;
          }
        }
        if (Object.keys(expires).length === 0) delete p.expires;
      }
      return changed;
    });
  }
  return removed;
}

export interface GrantEntry {
  readonly rule: string;
  readonly source: PermissionRuleSource;
  readonly file?: string;
  readonly expiresAt?: string;
  readonly expired: boolean;
}

/** Every allow rule the settings hold, with where it comes from and whether it has expired. */
export function listGrants(options: LoadSettingsOptions, now: number = Date.now()): { grants: GrantEntry[]; errors: string[] } {
  const loaded = loadSettings(options);
  const grants = loaded.permissionContext.alwaysAllowRules.map((r) => ({
    rule: formatPermissionRule(r.ruleValue),
    source: r.source,
    ...(r.sourceFile !== undefined ? { file: r.sourceFile } : {}),
    ...(r.expiresAt !== undefined ? { expiresAt: r.expiresAt } : {}),
    expired: isRuleExpired(r, now),
  }));
  return { grants, errors: loaded.errors.map((e) => `${e.file}: ${e.message}`) };
}

/**
 * The permission-update sink the runtime hands the executor: writes each update whose destination is a file
 * (addRules with its expiry, removeRules, replaceRules, setMode, add/removeDirectories). `session` ones are skipped
 * (they are applied in memory by whoever received them).
 */
export function createGrantWriter(where: GrantLocations): PermissionUpdateSink {
  return {
    persist(updates: readonly PermissionUpdate[]) {
      const written: string[] = [];
      const errors: string[] = [];
      for (const u of updates) {
        if (u.destination === 'session') continue;
        try {
          written.push(applyToFile(u, u.destination, where));
        } catch (error) {
          errors.push(error instanceof Error ? error.message : String(error));
        }
      }
      return Promise.resolve({ written, errors });
    },
  };
}

function applyToFile(u: PermissionUpdate, destination: GrantDestination, where: GrantLocations): string {
  if (u.type === 'addRules') return writeGrants({ ...where, destination, rules: u.rules, behavior: u.behavior, ...(u.expiresAt !== undefined ? { expiresAt: u.expiresAt } : {}) }).file;
  const file = grantFile(destination, where);
  editSettingsFile(file, (settings) => {
    const perms = permissionsOf(settings);
    switch (u.type) {
      case 'removeRules':
      case 'replaceRules': {
        const drop = new Set(u.rules.map((r) => formatPermissionRule(r)));
        const list = ruleList(perms, u.behavior);
        const kept = u.type === 'replaceRules' ? [] : list.filter((r) => !drop.has(canonical(r)));
        perms[u.behavior] = u.type === 'replaceRules' ? u.rules.map((r) => grantRuleText(r, u.behavior)) : kept;
        return true;
      }
      case 'setMode':
        perms.defaultMode = u.mode;
        return true;
      case 'addDirectories':
      case 'removeDirectories': {
        const dirs = Array.isArray(perms.additionalDirectories) ? (perms.additionalDirectories as string[]) : [];
        perms.additionalDirectories = u.type === 'addDirectories' ? [...new Set([...dirs, ...u.directories])] : dirs.filter((d) => !u.directories.includes(d));
        return true;
      }
    }
    return false;
  });
  return file;
}

/**
 * The runtime's `persistRules` seam: rules a person granted with scope `rule` go to the destination's file (an
 * expiring one to toolgate's twin file). Throws GrantError when a rule cannot be granted (e.g. all of Bash).
 */
export function createRulePersister(where: GrantLocations): (request: { readonly rules: readonly string[]; readonly destination: GrantDestination; readonly expiresAt?: string }) => Promise<void> {
  return (request) => {
    try {
      writeGrants({ ...where, destination: request.destination, rules: request.rules, ...(request.expiresAt !== undefined ? { expiresAt: request.expiresAt } : {}) });
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new GrantError(String(error)));
    }
  };
}
