/**
 * `toolgate hook install|uninstall`: toolgate's hook entry in the host's own settings, written through the house's one
 * settings writer (settings/grants.ts `editSettingsFile`: other keys and the indentation kept, an atomic rename, a
 * file that is not JSON never touched). Idempotent: toolgate's earlier entries are taken out before the new one goes
 * in, so installing twice changes nothing the second time; what changed is printed.
 *
 * Where: Claude Code `~/.claude/settings.json` (--user), `.claude/settings.json` (--project), `.claude/settings.local.json`
 * (--local), event PreToolUse, every tool (`*`); Gemini CLI `~/.gemini/settings.json` or `.gemini/settings.json`, event
 * BeforeTool (`.*`); Codex `~/.codex/hooks.json` or `.codex/hooks.json`, PreToolUse (and PermissionRequest with
 * --allow: Codex's PreToolUse cannot approve).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { editSettingsFile } from '../../settings/grants.js';
import { HOOK_HOSTS, type HookHost } from './hook-hosts.js';
import { inlineJsonOrPath } from '../../tool/read-config-file.js';

type Json = Record<string, unknown>;
type Scope = 'user' | 'project' | 'local';

export interface HookInstallPlan {
  readonly host: HookHost;
  readonly file: string;
  /** The folder the file must stay in (the home folder, or the project): a link out of it is refused. */
  readonly root?: string;
  /** Event → the group toolgate adds there. */
  readonly groups: Readonly<Record<string, Json>>;
}

/** A hook handler toolgate wrote: a command running `toolgate hook` (any path to it), or an HTTP hook at `toolgate hook serve`. */
export function isToolgateHandler(handler: unknown): boolean {
  if (handler === null || typeof handler !== 'object') return false;
  const h = handler as Json;
  if (typeof h.command === 'string' && /(^|[\s/'"])toolgate(\.js)?['"]?\s+hook(\s|$)/.test(h.command)) return true;
  return typeof h.url === 'string' && /^http:\/\/127\.0\.0\.1:\d+\/hook(\/|$)/.test(h.url) && JSON.stringify(h.headers ?? {}).includes('TOOLGATE_HOOK_TOKEN');
}

/** The root of this toolgate installation (where bin/toolgate.js is), found from this module's own file. */
function toolgateRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (fs.existsSync(path.join(dir, 'bin', 'toolgate.js')) && fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('cannot find bin/toolgate.js of this installation');
    dir = up;
  }
}

const quote = (s: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * The command the host runs: `toolgate hook …` in a project's shared settings (every clone has its own toolgate on
 * PATH), this installation's absolute path elsewhere (no PATH lookup, no npx: it runs once per tool call).
 */
export function hookCommandLine(scope: Scope, host: HookHost, flags: { allow?: boolean; policy?: readonly string[] }): string {
  const head = scope === 'project' ? 'toolgate' : `${quote(process.execPath)} ${quote(path.join(toolgateRoot(), 'bin', 'toolgate.js'))}`;
  const args = ['hook', ...(host !== 'claude' ? ['--host', host] : []), ...(flags.allow ? ['--allow'] : []), ...(flags.policy ?? []).flatMap((p) => ['--policy', quote(p)])];
  return `${head} ${args.join(' ')}`;
}

export function planHookInstall(options: { host: HookHost; scope: Scope; projectDir: string; homeDir: string; http?: boolean; port?: number; allow?: boolean; policy?: readonly string[] }): HookInstallPlan {
  const { host, scope, projectDir, homeDir } = options;
  if (scope === 'local' && host !== 'claude') throw new Error('--local is a Claude Code scope (.claude/settings.local.json)');
  if (options.http && host !== 'claude') throw new Error('--http: only Claude Code has HTTP hooks (Gemini CLI and Codex run commands)');
  const base = scope === 'user' ? homeDir : projectDir;
  const command = hookCommandLine(scope, host, options);
  if (host === 'claude') {
    const file = path.join(base, '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
    const handler = options.http
      ? { type: 'http', url: `http://127.0.0.1:${options.port ?? 7823}/hook`, headers: { Authorization: 'Bearer $TOOLGATE_HOOK_TOKEN' }, allowedEnvVars: ['TOOLGATE_HOOK_TOKEN'] }
      : { type: 'command', command };
    return { host, file, root: base, groups: { PreToolUse: { matcher: '*', hooks: [handler] } } };
  }
  if (host === 'gemini') {
    return { host, file: path.join(base, '.gemini', 'settings.json'), root: base, groups: { BeforeTool: { matcher: '.*', hooks: [{ type: 'command', name: 'toolgate', command, timeout: 60_000 }] } } };
  }
  const group = { hooks: [{ type: 'command', command }] };
  return { host, file: path.join(base, '.codex', 'hooks.json'), root: base, groups: options.allow ? { PreToolUse: group, PermissionRequest: group } : { PreToolUse: group } };
}

/** Takes toolgate's handlers out of every group of `events` (all events when absent); empty groups go. Returns what was removed. */
function removeToolgate(hooks: Json, events?: readonly string[]): { event: string; handler: unknown }[] {
  const removed: { event: string; handler: unknown }[] = [];
  for (const event of events ?? Object.keys(hooks)) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    const kept: unknown[] = [];
    for (const group of groups) {
      const handlers = group !== null && typeof group === 'object' ? (group as Json).hooks : undefined;
      if (!Array.isArray(handlers)) {
        kept.push(group);
        continue;
      }
      const mine = handlers.filter(isToolgateHandler);
      for (const handler of mine) removed.push({ event, handler });
      const rest = handlers.filter((h) => !isToolgateHandler(h));
      if (rest.length > 0) kept.push(mine.length > 0 ? { ...(group as Json), hooks: rest } : group);
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  }
  return removed;
}

function hooksOf(settings: Json): Json {
  const h = settings.hooks;
  if (h === undefined) return (settings.hooks = {});
  if (h === null || typeof h !== 'object' || Array.isArray(h)) throw new Error('"hooks" is not an object; not changed');
  return h as Json;
}

/** Applies the plan (or only reports it, `dryRun`); returns the lines saying what changed. */
export function applyHookInstall(verb: 'install' | 'uninstall', plan: HookInstallPlan, dryRun = false): string[] {
  const lines: string[] = [];
  const mutate = (settings: Json): boolean => {
    const before = JSON.stringify(settings);
    const hooks = hooksOf(settings);
    const removed = removeToolgate(hooks, verb === 'install' ? Object.keys(plan.groups) : undefined);
    const added: { event: string; group: Json }[] = [];
    if (verb === 'install') {
      for (const [event, group] of Object.entries(plan.groups)) {
        if (hooks[event] !== undefined && !Array.isArray(hooks[event])) throw new Error(`${plan.file}: "hooks.${event}" is not an array; not changed (fix it by hand: each event holds a list of matcher groups)`);
        const list = (hooks[event] as unknown[] | undefined) ?? [];
        hooks[event] = [...list, group];
        added.push({ event, group });
      }
    }
    if (Object.keys(hooks).length === 0) delete settings.hooks;
    const changed = JSON.stringify(settings) !== before;
    if (changed) {
      for (const r of removed) lines.push(`- hooks.${r.event}: ${JSON.stringify(r.handler)}`);
      for (const a of added) lines.push(`+ hooks.${a.event}: ${JSON.stringify(a.group)}`);
    }
    return changed && !dryRun;
  };
  refuseLinkedFile(plan);
  let changed: boolean;
  if (dryRun) {
    // The same mutation on a copy of what is there: nothing is written.
    let current: Json = {};
    try {
      current = JSON.parse(fs.readFileSync(plan.file, 'utf8')) as Json;
    } catch {
      current = {};
    }
    mutate(current);
    changed = lines.length > 0;
  } else {
    changed = editSettingsFile(plan.file, mutate);
  }
  const head = `${plan.file}: ${changed ? (dryRun ? 'would change' : 'changed') : verb === 'install' ? 'already installed, unchanged' : 'no toolgate hook, unchanged'}`;
  return [head, ...lines];
}

/**
 * A settings file that is a symbolic link, or whose folder's real path leaves the scope's folder (a `.claude` that is
 * a link), is refused: the writer replaces the file by rename, so a cloned repository's link to the user's settings
 * would put their contents — secrets in `env` included — into the project.
 */
function refuseLinkedFile(plan: HookInstallPlan): void {
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(plan.file);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) throw new Error(`${plan.file} is a symbolic link; not changed (edit the file it points to, or replace the link with a file)`);
  if (plan.root === undefined) return;
  const real = (p: string): string => {
    // The nearest existing folder's real path (the settings folder may not exist yet).
    for (let dir = p; ; dir = path.dirname(dir)) {
      try {
        return path.join(fs.realpathSync(dir), path.relative(dir, p));
      } catch {
        if (dir === path.dirname(dir)) return p;
      }
    }
  };
  const root = real(plan.root);
  const rel = path.relative(root, real(path.dirname(plan.file)));
  if (rel.startsWith('..') || path.isAbsolute(rel)) throw new Error(`${plan.file}: its folder is a link out of ${plan.root}; not changed`);
}

export function runHookInstall(verb: 'install' | 'uninstall', opts: Record<string, unknown>): void {
  const host = String(opts.host ?? 'claude');
  if (!(HOOK_HOSTS as readonly string[]).includes(host)) throw new Error(`--host must be one of ${HOOK_HOSTS.join(', ')}`);
  const scopes = (['user', 'project', 'local'] as const).filter((s) => opts[s] === true);
  if (scopes.length > 1) throw new Error('give one of --user, --project, --local');
  const port = Number.parseInt(String(opts.port ?? '7823'), 10);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) throw new Error('--port takes a port number');
  const plan = planHookInstall({
    host: host as HookHost,
    scope: scopes[0] ?? 'user',
    projectDir: path.resolve(typeof opts.projectDir === 'string' ? opts.projectDir : process.cwd()),
    homeDir: path.resolve(typeof opts.home === 'string' ? opts.home : os.homedir()),
    http: opts.http === true,
    port,
    allow: opts.allow === true,
    policy: Array.isArray(opts.policy) ? (opts.policy as string[]).map((p) => inlineJsonOrPath(p, process.cwd())) : [],
  });
  for (const line of applyHookInstall(verb, plan, opts.dryRun === true)) process.stdout.write(`${line}\n`);
  if (verb === 'install' && host === 'codex') process.stdout.write('Codex runs a new or changed hook only once it is trusted: review it with /hooks in Codex.\n');
  if (verb === 'install' && opts.http === true) process.stdout.write('Start the server with `toolgate hook serve --port ' + port + '` and give Claude Code TOOLGATE_HOOK_TOKEN in its environment.\n');
}
