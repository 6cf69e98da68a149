/**
 * The YAML frontmatter of a SKILL.md or custom command file, read as Claude Code reads it: every field optional,
 * booleans also as yes/no/on/off/1/0, `allowed-tools` and `arguments` as a list or a space/comma separated string.
 * Frontmatter that cannot be read is a warning naming the file and the line, and the file loads with what could be
 * read (Claude Code: "loads the skill body with empty metadata") — never an exception.
 */
import yaml from 'js-yaml';
import { splitRuleList } from '../permissions/permission-rule.js';

export interface CommandFrontmatter {
  /** Display name (a skill's command still comes from its folder's name). */
  readonly name?: string;
  readonly description?: string;
  readonly whenToUse?: string;
  readonly argumentHint?: string;
  /** Named arguments (`$issue`), in position order. */
  readonly arguments: readonly string[];
  /** Permission rules, in their text form. */
  readonly allowedTools: readonly string[];
  /** A model for the turn it starts (absent, or `inherit`: the session's). */
  readonly model?: string;
  readonly disableModelInvocation: boolean;
  readonly userInvocable: boolean;
  /** `fork`: Claude Code runs it in a sub-agent; toolgate runs it inline (said in a warning). */
  readonly context?: string;
}

export interface ParsedCommandMarkdown {
  readonly frontmatter: CommandFrontmatter;
  readonly body: string;
  readonly warnings: readonly string[];
}

const EMPTY: CommandFrontmatter = { arguments: [], allowedTools: [], disableModelInvocation: false, userInvocable: true };
const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;
/** Keys whose values are plain text: an unquoted `[a] [b]` there is text, not broken YAML. */
const TEXT_KEYS = ['name', 'description', 'when_to_use', 'argument-hint', 'model'];

export function parseCommandMarkdown(text: string, file: string): ParsedCommandMarkdown {
  const open = OPENING.exec(text);
  if (!open) return { frontmatter: EMPTY, body: text.replace(/^\uFEFF/, ''), warnings: [] };
  const rest = text.slice(open[0].length);
  const close = CLOSING.exec(rest);
  if (!close) return { frontmatter: EMPTY, body: text, warnings: [`${file}: the frontmatter has no closing "---" line; read as plain text`] };
  const source = rest.slice(0, close.index);
  const body = rest.slice(close.index + close[0].length).replace(/^\r?\n/, '');
  const warnings: string[] = [];
  const raw = loadYaml(source, file, warnings);
  if (raw === undefined) return { frontmatter: EMPTY, body, warnings };
  return { frontmatter: readFields(raw, file, warnings), body, warnings };
}

function loadYaml(source: string, file: string, warnings: string[]): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = yaml.load(source, { schema: yaml.CORE_SCHEMA, filename: file });
  } catch (error) {
    // `argument-hint: [pr-number] [priority]` (the documented form) is not valid YAML: text keys are read as text.
    try {
      value = yaml.load(quoteTextValues(source), { schema: yaml.CORE_SCHEMA, filename: file });
    } catch {
      const mark = (error as { mark?: { line?: number } }).mark;
      // +2: the mark counts from 0, and the frontmatter starts on the line after the opening "---".
      const where = mark?.line !== undefined ? ` (line ${mark.line + 2})` : '';
      const reason = (error as { reason?: string }).reason ?? (error as Error).message.split('\n')[0];
      warnings.push(`${file}: the frontmatter is not valid YAML${where}: ${reason}; loaded without its metadata`);
      return undefined;
    }
  }
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    warnings.push(`${file}: the frontmatter is not a set of "key: value" lines; loaded without its metadata`);
    return undefined;
  }
  return value as Record<string, unknown>;
}

function quoteTextValues(source: string): string {
  return source
    .split('\n')
    .map((line) => {
      const m = /^([A-Za-z_-]+):[ \t]+(\S.*?)\s*$/.exec(line);
      if (!m || !TEXT_KEYS.includes(m[1]!) || /^['"|>]/.test(m[2]!)) return line;
      return `${m[1]}: '${m[2]!.replace(/'/g, "''")}'`;
    })
    .join('\n');
}

function readFields(raw: Record<string, unknown>, file: string, warnings: string[]): CommandFrontmatter {
  const text = (key: string): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    // `argument-hint: [message]` is a YAML list of one: shown as written.
    if (key === 'argument-hint' && Array.isArray(v)) return v.map((x) => `[${String(x)}]`).join(' ');
    warnings.push(`${file}: "${key}" should be text; ignored`);
    return undefined;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const v = raw[key];
    if (v === undefined || v === null) return fallback;
    if (typeof v === 'boolean') return v;
    const s = String(v).trim().toLowerCase();
    if (['true', 'yes', 'on', '1'].includes(s)) return true;
    if (['false', 'no', 'off', '0'].includes(s)) return false;
    warnings.push(`${file}: "${key}" should be true or false (got ${JSON.stringify(v)}); using ${fallback}`);
    return fallback;
  };
  const [name, description, whenToUse, argumentHint, model, context] = ['name', 'description', 'when_to_use', 'argument-hint', 'model', 'context'].map(text);
  if (context === 'fork') warnings.push(`${file}: "context: fork" is not supported by toolgate; it runs in the conversation that invokes it`);
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(whenToUse !== undefined ? { whenToUse } : {}),
    ...(argumentHint !== undefined ? { argumentHint } : {}),
    arguments: list(raw.arguments, 'arguments', file, warnings),
    allowedTools: list(raw['allowed-tools'], 'allowed-tools', file, warnings),
    ...(model !== undefined && model !== 'inherit' ? { model } : {}),
    disableModelInvocation: bool('disable-model-invocation', false),
    userInvocable: bool('user-invocable', true),
    ...(context !== undefined ? { context } : {}),
  };
}

/** A YAML list of strings, or one string of items separated by commas or spaces (not inside parentheses). */
function list(v: unknown, key: string, file: string, warnings: string[]): string[] {
  if (v === undefined || v === null) return [];
  if (typeof v === 'string') return splitRuleList(v);
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.flatMap((x) => splitRuleList(x));
  warnings.push(`${file}: "${key}" should be a list or a string; ignored`);
  return [];
}
