/**
 * The rule that would allow a call that asked, in the exact form the matcher reads — shown in prompts and named in
 * headless denials ("add "Bash(npm run build:*)" to permissions.allow"). Nothing is suggested for protected paths or
 * unanalysable commands: no allow rule can pre-approve those.
 */
import path from 'node:path';
import type { DecisionTrace, PermissionRuleValue, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { isFileTool, safeIsReadOnly, toolPath } from './content-check.js';
import { hostOfUrl } from './domains.js';
import { isInsideDir } from './paths.js';
import { permissionTraitsOf } from './tool-traits.js';

const PLAIN_WORD = /^[A-Za-z0-9_][A-Za-z0-9_.@+/=-]*$/;

export function suggestRules(
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolPermissionContext,
  trace: DecisionTrace | undefined,
): PermissionRuleValue[] {
  if (trace?.layer === 'safetyCheck' && trace.classifierApprovable === false) return [];
  if (trace?.layer === 'safetyCheck' && /protected path/.test(trace.reason)) return [];
  if (trace?.layer === 'askRule' || trace?.layer === 'hook') return [];
  const traits = permissionTraitsOf(tool);
  if (traits.kind === 'shell') {
    const command = input[traits.commandField ?? 'command'];
    const source = trace?.subcommand ?? (typeof command === 'string' ? command : '');
    const prefix = bashPrefix(source);
    return prefix ? [{ toolName: tool.name, ruleContent: `${prefix}:*` }] : [];
  }
  if (isFileTool(tool)) {
    const abs = toolPath(tool, input, ctx) ?? ctx.cwd;
    const toolName = safeIsReadOnly(tool, input) ? 'Read' : 'Edit';
    const dir = traits.kind === 'search' ? abs : path.dirname(abs);
    const rel = path.relative(ctx.cwd, dir);
    const pattern = !isInsideDir(dir, ctx.cwd) ? `/${dir === '/' ? '' : dir}/**` : rel === '' ? './**' : `./${rel}/**`;
    return [{ toolName, ruleContent: pattern }];
  }
  if (traits.kind === 'fetch' && traits.urlField !== undefined) {
    const host = hostOfUrl(input[traits.urlField]);
    return host.ok ? [{ toolName: tool.name, ruleContent: `domain:${host.host}` }] : [];
  }
  return [{ toolName: tool.name }];
}

/** `npm run build -- --watch` → `npm run build`; up to three plain words, stopping at flags, paths and operators. */
function bashPrefix(command: string): string | undefined {
  const trimmed = command.trim();
  if (trimmed.length === 0 || /[;&|`$<>()\n]/.test(trimmed)) return undefined;
  const words = trimmed.split(/\s+/);
  const out: string[] = [];
  for (const w of words) {
    if (out.length === 3 || w.startsWith('-') || !PLAIN_WORD.test(w) || (out.length > 0 && w.includes('/'))) break;
    if (out.length === 0 && w.includes('=')) return undefined;
    out.push(w);
  }
  return out.length > 0 ? out.join(' ') : undefined;
}
