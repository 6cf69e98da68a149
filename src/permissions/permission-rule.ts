/**
 * Rule text ⇄ rule value: `Tool` and `Tool(content)`. Inside content, `(`, `)` and `\` are escaped with a backslash
 * so that any content round-trips; other backslashes are kept as written. `Tool()` and `Tool(*)` mean the whole tool.
 * Former tool names resolve to the canonical ones first (rules match canonical names only).
 */
import type { PermissionBehavior, PermissionRuleValue } from '../tool/permission-types.js';
import { hasInnerColonStar } from './bash/rule-match.js';

/** Former names → canonical names (Claude Code 2.1.328). */
export const LEGACY_TOOL_NAMES: Readonly<Record<string, string>> = {
  Task: 'Agent',
  KillShell: 'TaskStop',
  KillBash: 'TaskStop',
  ListMcpResources: 'ListMcpResourcesTool',
  ReadMcpResource: 'ReadMcpResourceTool',
  ReadMcpResourceDir: 'ReadMcpResourceDirTool',
  Brief: 'SendUserMessage',
  Eval: 'REPL',
  RunWorkflow: 'Workflow',
  ProposeGoal: 'SetGoal',
  ListPeers: 'ListAgents',
};

/** Built-in tool names a rule may name (deny/ask rules naming others get a warning). */
export const KNOWN_TOOL_NAMES: ReadonlySet<string> = new Set([
  'Agent', 'AskUserQuestion', 'Bash', 'CronCreate', 'CronDelete', 'CronList', 'Edit', 'EnterPlanMode', 'EnterWorktree',
  'ExitPlanMode', 'ExitWorktree', 'Glob', 'Grep', 'LSP', 'ListAgents', 'ListMcpResourcesTool', 'Monitor', 'MultiEdit',
  'NotebookEdit', 'NotebookRead', 'PowerShell', 'REPL', 'Read', 'ReadMcpResourceDirTool', 'ReadMcpResourceTool',
  'RefreshMcpTools', 'ScheduleWakeup', 'SendMessage', 'SendUserMessage', 'SetGoal', 'Skill', 'TaskCreate', 'TaskGet',
  'TaskList', 'TaskOutput', 'TaskStop', 'TaskUpdate', 'TodoWrite', 'ToolSearch', 'WaitForMcpServers', 'WebFetch',
  'WebSearch', 'Workflow', 'Write',
]);

/** A permission rule's text could not be read (`ruleText`, and the `problem`). */
export class PermissionRuleParseError extends Error {
  override readonly name = 'PermissionRuleParseError';
  constructor(
    readonly ruleText: string,
    readonly problem: string,
  ) {
    super(`invalid permission rule ${JSON.stringify(ruleText)}: ${problem}`);
  }
}

const TOOL_NAME = /^[A-Za-z0-9_*-]+$/;
/** Rule names whose content is a command (Claude Code's documented shell rule syntax). */
const SHELL_RULE_TOOLS: ReadonlySet<string> = new Set(['Bash', 'PowerShell', 'Monitor']);

export function canonicalToolName(name: string): string {
  return LEGACY_TOOL_NAMES[name] ?? name;
}

export type ParseRuleResult = { ok: true; value: PermissionRuleValue } | { ok: false; error: PermissionRuleParseError };

export function tryParsePermissionRule(text: string): ParseRuleResult {
  try {
    return { ok: true, value: parsePermissionRule(text) };
  } catch (error) {
    if (error instanceof PermissionRuleParseError) return { ok: false, error };
    throw error;
  }
}

/** `Bash(npm run test:*)` → `{ toolName: 'Bash', ruleContent: 'npm run test:*' }`. Throws PermissionRuleParseError. */
export function parsePermissionRule(text: string): PermissionRuleValue {
  if (typeof text !== 'string') throw new PermissionRuleParseError(String(text), 'a rule must be a string');
  const trimmed = text.trim();
  if (trimmed.length === 0) throw new PermissionRuleParseError(text, 'the rule is empty');
  const open = trimmed.indexOf('(');
  if (open === -1) {
    if (trimmed.includes(')')) throw new PermissionRuleParseError(text, 'a ")" without a "("');
    return { toolName: checkToolName(trimmed, text) };
  }
  const toolName = checkToolName(trimmed.slice(0, open), text);
  if (!trimmed.endsWith(')') || isEscaped(trimmed, trimmed.length - 1)) {
    throw new PermissionRuleParseError(text, 'the content must end with ")" (escape a literal parenthesis as "\\)")');
  }
  const content = unescapeRuleContent(trimmed.slice(open + 1, -1));
  if (content === '' || content === '*') return { toolName };
  return { toolName, ruleContent: content };
}

/** The inverse of `parsePermissionRule`: `{ toolName: 'Bash', ruleContent: 'echo (x)' }` → `Bash(echo \(x\))`. */
export function formatPermissionRule(value: PermissionRuleValue): string {
  if (value.ruleContent === undefined || value.ruleContent === '') return value.toolName;
  return `${value.toolName}(${escapeRuleContent(value.ruleContent)})`;
}

export function escapeRuleContent(content: string): string {
  return content.replace(/[\\()]/g, (c) => `\\${c}`);
}

export function unescapeRuleContent(content: string): string {
  let out = '';
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    const n = content[i + 1];
    if (c === '\\' && (n === '(' || n === ')' || n === '\\')) {
      out += n;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

function isEscaped(text: string, index: number): boolean {
  let count = 0;
  for (let i = index - 1; i >= 0 && text[i] === '\\'; i--) count++;
  return count % 2 === 1;
}

function checkToolName(name: string, text: string): string {
  if (name.length === 0) throw new PermissionRuleParseError(text, 'the tool name is missing');
  if (!TOOL_NAME.test(name)) {
    throw new PermissionRuleParseError(text, `"${name}" is not a tool name (letters, digits, "_", "-", "*")`);
  }
  return canonicalToolName(name);
}

/** Problems a syntactically valid rule can still have for its behavior: errors void it, warnings only inform. */
export function validatePermissionRule(
  value: PermissionRuleValue,
  behavior: PermissionBehavior,
): { errors: string[]; warnings: string[] } {
  const errors: string[] = [];
  const warnings: string[] = [];
  const { toolName, ruleContent } = value;
  if (toolName.includes('*')) {
    const mcpServerGlob = /^mcp__[^*]+__.*\*/.test(toolName);
    if (behavior === 'allow' && !mcpServerGlob) {
      errors.push('in allow rules "*" is only accepted after "mcp__<server>__"');
    }
  }
  if (ruleContent !== undefined) {
    if (toolName === 'WebFetch' && !ruleContent.startsWith('domain:')) {
      warnings.push('WebFetch rules are matched by domain only ("WebFetch(domain:example.com)"); this one is never consulted');
    }
    if (behavior === 'allow' && ['Write', 'NotebookEdit', 'MultiEdit', 'Glob', 'Grep'].includes(toolName)) {
      warnings.push(`${toolName}(…) allow rules are not consulted: use Edit(…) for writes and Read(…) for reads`);
    }
    if (SHELL_RULE_TOOLS.has(toolName) && hasInnerColonStar(ruleContent)) {
      // Documented only as a suffix; elsewhere it can be read two ways, and each behaviour takes the safe one.
      if (behavior === 'allow') errors.push('":*" is only valid at the end of the rule; this allow rule would allow nothing');
      else warnings.push('":*" is only valid at the end of the rule; it is matched here in every way it could be read');
    }
    if (behavior === 'allow' && toolName === 'Agent' && /^[A-Za-z_][A-Za-z0-9_]*:/.test(ruleContent)) {
      warnings.push('parameter rules (param:value) apply to deny and ask only; this allow rule is matched as a subagent type');
    }
  }
  const bare = toolName.replace(/\*/g, '');
  if (behavior !== 'allow' && !toolName.includes('_') && !toolName.includes('*') && !KNOWN_TOOL_NAMES.has(bare)) {
    warnings.push(`"${toolName}" is not a known tool name`);
  }
  return { errors, warnings };
}

/**
 * A list of rules as a flag or a frontmatter field gives it: `Bash(git add *), Read Grep` → three rules. Commas and
 * whitespace separate, except inside a rule's parentheses.
 */
export function splitRuleList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    if (ch === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === ',' || /\s/.test(ch))) {
      if (current.trim()) out.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}
