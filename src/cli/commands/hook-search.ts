/**
 * What a host's search may read that toolgate's own would not. toolgate's Grep leaves out the files a Read deny rule
 * covers (tools/shared/search-path.ts); the host's search runs whole, and its tool knows none of toolgate's policy
 * files — Gemini CLI and Codex know none of the rules at all. So, for a Grep-like call (Claude Code's Grep, Gemini's
 * grep_search and read_many_files mapped to one):
 * - a `glob` (Gemini `include`) that names a file a Read deny covers under the search root: deny;
 * - a search that prints lines (`output_mode: content`) whose root holds such a file: ask;
 * - a root too large to look through (past the walk's budget) while a deny rule could reach into it: ask.
 * The walk follows no symlinked folder and skips version-control folders (ripgrep does the same by default).
 */
import type fs from 'node:fs';
import path from 'node:path';
import type { ToolPermissionContext } from '../../tool/permission-types.js';
import { expandPath, isPathReadDenied, readDenyGlobs, VCS_DIRECTORIES } from '../../permissions/paths.js';
import { segmentMatches } from '../../permissions/path-pattern.js';
import { readdirEntriesSync, statSync } from '../../permissions/observed-fs.js';
import type { HookAnswer, HookCall } from './hook-hosts.js';

/** Entries looked at before giving up (then: ask). */
export const SEARCH_WALK_BUDGET = 50_000;

export function searchFinding(call: HookCall, ctx: ToolPermissionContext): HookAnswer | undefined {
  if (call.tool !== 'Grep') return undefined;
  const input = call.input;
  const root = typeof input.path === 'string' && input.path !== '' ? expandPath(input.path, call.cwd, ctx.homeDir) : call.cwd;
  const globs = typeof input.glob === 'string' ? expandGlobs(input.glob) : [];
  const content = input.output_mode === 'content';
  if (globs.length === 0 && !content) return undefined;
  if (readDenyGlobs(ctx, root).length === 0) return undefined;
  const found = findDenied(root, globs, ctx);
  if (found === 'budget') return { kind: 'ask', reason: `toolgate: asks: the search reaches into ${root}, which is too large to check against the Read deny rules` };
  if (found === undefined) return undefined;
  if (globs.length > 0) return { kind: 'deny', reason: `toolgate: denied: the search's glob ${JSON.stringify(input.glob)} names ${found}, which a Read deny rule covers (the host's search would read it)` };
  return { kind: 'ask', reason: `toolgate: asks: the search would print lines of ${found}, which a Read deny rule covers (the host's search does not leave it out)` };
}

/** The first file under `root` that a Read deny covers and the globs (if any) select; 'budget' when the walk ran out. */
function findDenied(root: string, globs: readonly string[], ctx: ToolPermissionContext): string | 'budget' | undefined {
  let budget = SEARCH_WALK_BUDGET;
  let rootStat: fs.Stats;
  try {
    rootStat = statSync(root);
  } catch {
    return undefined;
  }
  if (!rootStat.isDirectory()) return globs.length === 0 || selected(path.basename(root), globs) ? (isPathReadDenied(root, ctx) ? root : undefined) : undefined;
  const stack: string[] = [''];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = readdirEntriesSync(path.join(root, rel));
    } catch {
      continue;
    }
    for (const e of entries) {
      if (--budget < 0) return 'budget';
      const r = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!(VCS_DIRECTORIES as readonly string[]).includes(e.name)) stack.push(r);
        continue;
      }
      if (globs.length > 0 && !selected(r, globs)) continue;
      const abs = path.join(root, r);
      if (isPathReadDenied(abs, ctx)) return abs;
    }
  }
  return undefined;
}

/** ripgrep's glob rule: a glob without `/` matches the file name at any depth, one with `/` the path from the root. */
function selected(rel: string, globs: readonly string[]): boolean {
  const names = rel.split('/');
  return globs.some((g) => {
    const segs = g.replace(/^\/+/, '').split('/').filter((s) => s !== '');
    return g.includes('/') ? matchSegments(segs, names) : segmentMatches(g, names[names.length - 1]!, false);
  });
}

function matchSegments(segs: readonly string[], names: readonly string[]): boolean {
  if (segs.length === 0) return names.length === 0;
  if (segs[0] === '**') return matchSegments(segs.slice(1), names) || (names.length > 0 && matchSegments(segs, names.slice(1)));
  return names.length > 0 && segmentMatches(segs[0]!, names[0]!, false) && matchSegments(segs.slice(1), names.slice(1));
}

/** A Grep `glob` field: several globs split on whitespace, `{a,b}` expanded, `!` exclusions dropped (they only narrow). */
function expandGlobs(field: string): string[] {
  const out: string[] = [];
  const expand = (g: string, depth: number): void => {
    const m = /\{([^{}]*)\}/.exec(g);
    if (m === null || depth > 4 || out.length > 256) {
      out.push(g);
      return;
    }
    for (const alt of m[1]!.split(',')) expand(g.slice(0, m.index) + alt + g.slice(m.index + m[0].length), depth + 1);
  };
  for (const g of field.split(/\s+/)) if (g !== '' && !g.startsWith('!')) expand(g, 0);
  return out;
}
