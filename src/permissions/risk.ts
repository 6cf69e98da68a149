/**
 * How risky a call the engine asks about is, in one word a person can weigh at a prompt: read-only, writes in the
 * project, writes outside it, network, runs code, destructive. Decided from the tool's traits — `isDestructive`
 * (MCP's `destructiveHint` sets it), `isReadOnly`, `permissionTraits.kind`, `mcpInfo`, `getPath` — never its name.
 * The level only describes; what is allowed is still the engine's decision.
 */
import path from 'node:path';
import type { PermissionRisk, PermissionRiskLevel, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { isInsideDir, workingDirectories } from './paths.js';

export type { PermissionRisk, PermissionRiskLevel };

const SUMMARY: Readonly<Record<PermissionRiskLevel, string>> = {
  'read-only': 'reads only',
  'writes-in-project': 'changes files in the project',
  'writes-outside-project': 'changes files outside the project',
  network: 'reaches the network',
  'runs-code': 'runs code',
  destructive: 'may do what cannot be undone (delete, overwrite, send)',
};

function safe<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** The risk of `tool` called with `input`; a trait that throws counts against the call (fail closed). */
export function classifyRisk(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionRisk {
  const level = riskLevel(tool, input, ctx);
  return { level, destructive: level === 'destructive', summary: SUMMARY[level] };
}

function riskLevel(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): PermissionRiskLevel {
  if (safe(() => tool.isDestructive(input as never) === true, true)) return 'destructive';
  const kind = tool.permissionTraits?.kind;
  // Reading a URL changes nothing here, but what leaves the machine is the risk a person weighs: network first.
  if (kind === 'fetch') return 'network';
  if (safe(() => tool.isReadOnly(input as never) === true, false)) return 'read-only';
  if (kind === 'write') return writesInProject(tool, input, ctx) ? 'writes-in-project' : 'writes-outside-project';
  if (kind === 'read' || kind === 'search') return 'read-only';
  // A shell, an MCP server's tool, anything else that acts: code runs on the person's behalf.
  return 'runs-code';
}

function writesInProject(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext): boolean {
  const field = tool.permissionTraits?.pathField;
  const given = safe(() => tool.getPath?.(input as never), undefined) ?? (field !== undefined ? input[field] : undefined);
  if (typeof given !== 'string' || given === '') return false;
  const target = path.resolve(ctx.cwd, given);
  return workingDirectories(ctx).some((dir) => isInsideDir(target, dir));
}

/** The risk in one line, as a dialog or a host shows it. */
export function describeRisk(risk: PermissionRisk): string {
  return `Risk: ${risk.level} — ${risk.destructive ? 'DESTRUCTIVE: ' : ''}this call ${risk.summary}`;
}
