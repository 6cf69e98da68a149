/**
 * toolgate's system prompt: a few lines of its own, the environment the model works in, and the project's
 * instructions (`CLAUDE.md`, `AGENTS.md`) when present. Built once per query so it stays byte-identical from turn to
 * turn (it carries a prompt-cache breakpoint).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface SystemPromptOptions {
  readonly cwd: string;
  readonly additionalDirectories?: readonly string[];
  readonly platform?: string;
  readonly date?: Date;
  readonly model?: string;
  readonly appendSystemPrompt?: string;
}

const MEMORY_FILES = ['CLAUDE.md', 'AGENTS.md'] as const;
/** A project file far larger than this is not instructions; cut it rather than fill the context. */
const MAX_MEMORY_CHARS = 40_000;

const INTRO = `You are a coding agent working in a user's project through tools: reading and searching files, editing them and running shell commands.
Find things out with the tools rather than guessing. Keep changes focused on what was asked, and check your work when you can (run the tests, read the file back).
Tool calls go through permission rules. When one is denied, do not look for a way around it: say what you needed and why, and let the user decide.
Finish with a short, plain account of what you did and anything left open.`;

export function buildSystemPrompt(options: SystemPromptOptions): string {
  const date = (options.date ?? new Date()).toISOString().slice(0, 10);
  const lines = [
    INTRO,
    '',
    '# Environment',
    `- Working directory: ${options.cwd}`,
    ...(options.additionalDirectories?.length ? [`- Additional directories: ${options.additionalDirectories.join(', ')}`] : []),
    `- Platform: ${options.platform ?? process.platform}`,
    `- Date: ${date}`,
    `- Git repository: ${isGitRepository(options.cwd) ? 'yes' : 'no'}`,
    ...(options.model ? [`- Model: ${options.model}`] : []),
  ];
  for (const name of MEMORY_FILES) {
    const text = readMemoryFile(path.join(options.cwd, name));
    if (text) lines.push('', `# Project instructions (${name})`, text);
  }
  if (options.appendSystemPrompt?.trim()) lines.push('', options.appendSystemPrompt.trim());
  return lines.join('\n');
}

/** A `.git` folder or file (worktrees, submodules) in `dir` or any parent. */
export function isGitRepository(dir: string): boolean {
  let current = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(current, '.git'))) return true;
    const parent = path.dirname(current);
    if (parent === current) return false;
    current = parent;
  }
}

function readMemoryFile(file: string): string | undefined {
  try {
    // Most projects have neither file: a missing one is answered without an exception (its stack trace cost more
    // than the rest of the prompt, every session).
    if (!statSync(file, { throwIfNoEntry: false })?.isFile()) return undefined;
    const text = readFileSync(file, 'utf8').trim();
    return text.length > MAX_MEMORY_CHARS ? `${text.slice(0, MAX_MEMORY_CHARS)}\n[… ${text.length - MAX_MEMORY_CHARS} more characters not shown]` : text;
  } catch {
    return undefined;
  }
}
