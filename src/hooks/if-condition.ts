/**
 * A handler's `if` filter (reference A3): one permission rule such as `Bash(git *)`, `Edit(*.ts)` or
 * `WebFetch(domain:example.com)` that must match the call for the hook to run. It only narrows when the hook runs, so
 * anything this matcher cannot reason about fails OPEN — the hook runs — as Claude Code does for unparseable commands.
 */
import { homedir } from 'node:os';
import { basename, isAbsolute, resolve } from 'node:path';
import picomatch from 'picomatch';
import { parseMcpToolName } from '../permissions/tool-rule-match.js';

export interface IfConditionContext {
  cwd: string;
  projectDir: string;
}

/** Pluggable so an embedding program can use the full permission engine's matcher instead. */
export type IfConditionMatcher = (
  rule: string,
  toolName: string,
  toolInput: Record<string, unknown>,
  ctx: IfConditionContext,
) => boolean;

const RULE = /^\s*([^()\s]+)\s*(?:\(([\s\S]*)\))?\s*$/;
const FILE_TOOLS = new Set(['Read', 'Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'Glob', 'Grep', 'LS']);

export function parseIfRule(rule: string): { toolName: string; content?: string } | undefined {
  const m = RULE.exec(rule);
  if (!m) return undefined;
  return { toolName: m[1]!, content: m[2] };
}

export const matchesIfCondition: IfConditionMatcher = (rule, toolName, toolInput, ctx) => {
  const parsed = parseIfRule(rule);
  if (!parsed) return true;
  if (!toolNameMatches(parsed.toolName, toolName)) return false;
  const content = parsed.content?.trim();
  if (content === undefined || content === '' || content === '*') return true;
  if (toolName === 'Bash') return bashMatches(content, typeof toolInput.command === 'string' ? toolInput.command : '');
  if (FILE_TOOLS.has(toolName)) {
    const p = toolInput.file_path ?? toolInput.notebook_path ?? toolInput.path ?? ctx.cwd;
    return typeof p === 'string' ? pathMatches(content, p, ctx) : true;
  }
  if (toolName === 'WebFetch' && content.startsWith('domain:')) {
    return typeof toolInput.url === 'string' ? domainMatches(content.slice(7).trim(), toolInput.url) : true;
  }
  return true;
};

function toolNameMatches(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  const rule = parseMcpToolName(ruleTool);
  const tool = parseMcpToolName(toolName);
  if (!rule || !tool || rule.serverName !== tool.serverName) return false;
  return rule.toolName === undefined || rule.toolName === '*';
}

function bashMatches(pattern: string, command: string): boolean {
  // Legacy prefix form `npm test:*` means the same as `npm test *`.
  const p = pattern.replace(/:\*$/, ' *').replace(/\s+/g, ' ').trim();
  const patternIsBareName = !p.includes(' ');
  if (!patternIsBareName && /\$\(|`|\$[A-Za-z_{]/.test(command)) return true;
  // Escapes and unbalanced quotes are beyond this splitter: run the hook.
  if (command.includes('\\') || (command.match(/'/g)?.length ?? 0) % 2 === 1 || (command.match(/"/g)?.length ?? 0) % 2 === 1) {
    return true;
  }
  const re = wildcardRegex(p);
  return subcommands(command).some((seg) => re.test(seg));
}

function wildcardRegex(pattern: string): RegExp {
  // A trailing ` *` also matches the bare command (`git *` matches `git`), never a longer word (`gitk`).
  const trailing = pattern.endsWith(' *');
  const body = trailing ? pattern.slice(0, -2) : pattern;
  const source = body
    .split('*')
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${source}${trailing ? '(?: .*)?' : ''}$`, 's');
}

/** Every simple command: split on control operators, plus the bodies of `$(…)` and backticks. */
function subcommands(command: string): string[] {
  const pieces: string[] = [];
  for (const m of command.matchAll(/\$\(([^()]*)\)|`([^`]*)`/g)) pieces.push(m[1] ?? m[2] ?? '');
  pieces.push(command);
  return pieces
    .flatMap((piece) => piece.split(/&&|\|\||[;|&\n()]/))
    .map((seg) =>
      seg
        .trim()
        .replace(/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+)+/, '')
        .replace(/['"]/g, '')
        .replace(/\s+/g, ' '),
    )
    .filter((seg) => seg !== '');
}

/** gitignore-style rule paths: `//abs`, `~/home`, `/project-root`, relative to cwd when it has a slash, else any depth. */
function pathMatches(pattern: string, filePath: string, ctx: IfConditionContext): boolean {
  const abs = isAbsolute(filePath) ? filePath : resolve(ctx.cwd, filePath);
  // `dir/` means everything under it.
  if (pattern.endsWith('/')) pattern += '**';
  let full: string;
  if (pattern.startsWith('//')) full = pattern.slice(1);
  else if (pattern.startsWith('~/')) full = resolve(homedir(), pattern.slice(2));
  else if (pattern.startsWith('/')) full = ctx.projectDir.replace(/\/+$/, '') + pattern;
  else if (pattern.includes('/')) full = resolve(ctx.cwd, pattern);
  else return picomatch(pattern, { dot: true })(basename(abs));
  return picomatch(full, { dot: true })(abs);
}

function domainMatches(pattern: string, url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return true;
  }
  const p = pattern.toLowerCase();
  if (p.startsWith('*.')) return host.endsWith(p.slice(1)) || host === p.slice(2);
  return host === p;
}
