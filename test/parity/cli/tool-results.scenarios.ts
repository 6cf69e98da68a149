/**
 * The scenarios of the tool-result parity recordings: a scripted model makes these calls, one per turn, on a fresh
 * temp project; what the tool_result blocks say (normalized) is compared between Claude Code and toolgate. `$DIR` in
 * an input is the project's absolute path. Both sides get the same files, the same calls and `--allowedTools`.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RecordedRequest } from '../../../src/testing/index.js';

export interface ParityCall {
  readonly name: string;
  readonly input: Record<string, unknown>;
}

export interface ParityScenario {
  readonly name: string;
  readonly calls: readonly ParityCall[];
  /** Files of this scenario only, written after the project's. */
  readonly files?: Readonly<Record<string, string>>;
  /**
   * The environment both sides run with (`ENABLE_TOOL_SEARCH=false`: Claude Code offers a deferred tool such as
   * NotebookEdit only through ToolSearch otherwise, and the scripted model calls it directly).
   */
  readonly env?: Readonly<Record<string, string>>;
}

export const ALLOWED_TOOLS = ['Bash', 'Read', 'Grep', 'Glob', 'Edit', 'Write', 'NotebookEdit'];

/** Writes a scenario's own files into the project. */
export function writeScenarioFiles(dir: string, scenario: ParityScenario): void {
  for (const [rel, text] of Object.entries(scenario.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
}

const notebook = JSON.stringify(
  {
    cells: [
      { cell_type: 'code', id: 'c1', metadata: {}, source: ['print(1)\n'], outputs: [], execution_count: null },
      { cell_type: 'markdown', id: 'c2', metadata: {}, source: ['# T'] },
    ],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
);
const nbEdit = (input: Record<string, unknown>): ParityCall => ({ name: 'NotebookEdit', input: { notebook_path: '$DIR/nb.ipynb', ...input } });
/** acceptEdits too: a shell redirect into the project is an edit (toolgate asks for it under a bare `Bash` rule). */
export const PERMISSION_MODE = 'acceptEdits';

const rows = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join('\n') + '\n';
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `n${i + 1}`).join('\n') + '\n';
const many = Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`many/f${String(i).padStart(3, '0')}.txt`, 'item\n']));

/** The project every scenario starts from. */
export const PROJECT_FILES: Readonly<Record<string, string>> = {
  'a.txt': 'line1\nline2\nline3\n',
  'nonl.txt': 'alpha\nbeta',
  'empty.txt': '',
  'long.txt': rows,
  'dup.txt': 'x\nx\n',
  'b.txt': 'before\n',
  'src/app.ts': 'export const a = 1; // TODO one\nexport const b = 2;\n// TODO two\n',
  'src/util.ts': 'export function u() {\n  return 0; // TODO three\n}\n',
  'docs/readme.md': '# Title\n\nNo marker here.\n',
  'big.txt': numbered(2100),
  'wide.txt': `short\n${'w'.repeat(2500)}\nend\n`,
  'crlf.txt': 'one\r\ntwo\r\n',
  'blank.txt': 'a\n\nb\n',
  'tabs.go': 'func f() {\n\treturn 1\n}\n',
  'mixed.txt': 'a\r\nb\nc\r\n',
  'tokens.txt': Array.from({ length: 15000 }, (_, i) => `tokenline ${String(i + 1).padStart(5, '0')}`).join('\n') + '\n',
  'huge.txt': Array.from({ length: 30000 }, (_, i) => `hugeline ${String(i + 1).padStart(6, '0')} xxxxxxxxxx`).join('\n') + '\n',
  ...many,
};

/** Writes the project; each file a minute newer than the one before (Glob and Grep list by modification time). */
export function makeProject(dir: string): void {
  const base = Date.UTC(2026, 0, 1) / 1000;
  for (const [i, [rel, text]] of Object.entries(PROJECT_FILES).entries()) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
    fs.utimesSync(path.join(dir, rel), base + i * 60, base + i * 60);
  }
}

const read = (file: string, extra: Record<string, unknown> = {}): ParityCall => ({ name: 'Read', input: { file_path: `$DIR/${file}`, ...extra } });
const grep = (input: Record<string, unknown>): ParityCall => ({ name: 'Grep', input });
const bash = (command: string): ParityCall => ({ name: 'Bash', input: { command, description: 'run it' } });
const edit = (file: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}): ParityCall => ({
  name: 'Edit',
  input: { file_path: `$DIR/${file}`, old_string, new_string, ...extra },
});
const write = (file: string, content: string): ParityCall => ({ name: 'Write', input: { file_path: `$DIR/${file}`, content } });

export const SCENARIOS: readonly ParityScenario[] = [
  {
    name: 'read',
    calls: [
      read('a.txt'),
      read('nonl.txt'),
      read('empty.txt'),
      read('long.txt', { offset: 10, limit: 5 }),
      read('long.txt', { limit: 3 }),
      read('long.txt', { offset: 100 }),
      read('missing.txt'),
      read('src'),
      read('big.txt'),
      read('big.txt', { offset: 2050 }),
      read('wide.txt'),
      read('crlf.txt'),
      read('a.txt', { offset: 4 }),
      read('empty.txt', { offset: 1, limit: 1 }),
      read('blank.txt'),
      read('tokens.txt'),
      read('tokens.txt', { offset: 1, limit: 8000 }),
      read('tokens.txt', { offset: 14990 }),
      read('huge.txt'),
      read('huge.txt', { offset: 5, limit: 3 }),
      read('tabs.go'),
      read('mixed.txt'),
    ],
  },
  {
    name: 'grep',
    calls: [
      grep({ pattern: 'TODO' }),
      grep({ pattern: 'TODO', output_mode: 'content' }),
      grep({ pattern: 'TODO', output_mode: 'content', '-n': false }),
      grep({ pattern: 'TODO', output_mode: 'count' }),
      grep({ pattern: 'no-such-marker' }),
      grep({ pattern: 'no-such-marker', output_mode: 'content' }),
      grep({ pattern: 'no-such-marker', output_mode: 'count' }),
      grep({ pattern: 'row', output_mode: 'content', head_limit: 3 }),
      grep({ pattern: 'TODO', head_limit: 1 }),
      grep({ pattern: 'row', output_mode: 'count', head_limit: 1 }),
      grep({ pattern: 'row 1', output_mode: 'content', offset: 2, head_limit: 2 }),
      grep({ pattern: 'TODO', glob: '*.md' }),
      grep({ pattern: 'item', output_mode: 'content' }),
      grep({ pattern: 'item' }),
      grep({ pattern: 'TODO', path: '$DIR/src', output_mode: 'content' }),
      grep({ pattern: '(unclosed' }),
    ],
  },
  {
    name: 'glob',
    calls: [
      { name: 'Glob', input: { pattern: '**/*.ts' } },
      { name: 'Glob', input: { pattern: '*.none' } },
      { name: 'Glob', input: { pattern: '*.txt', path: '$DIR' } },
      { name: 'Glob', input: { pattern: '*', path: '$DIR/missing-dir' } },
      { name: 'Glob', input: { pattern: '*.ts', path: '$DIR/src' } },
      { name: 'Glob', input: { pattern: 'many/*.txt' } },
      { name: 'Glob', input: { pattern: '*', path: '$DIR/a.txt' } },
    ],
  },
  {
    name: 'bash',
    calls: [bash('echo hi'), bash('echo out; echo err >&2; exit 3'), bash('true'), bash('echo only-err >&2'), bash('exit 1'), bash('printf "no newline"'), bash('seq 1 40000'), bash('cd src && pwd'), bash('pwd')],
  },
  {
    name: 'edit',
    calls: [
      edit('a.txt', 'line2', 'LINE2'),
      read('a.txt'),
      edit('a.txt', 'line2', 'LINE2'),
      edit('a.txt', 'nope', 'x'),
      edit('a.txt', 'line1', 'line1'),
      read('dup.txt'),
      edit('dup.txt', 'x', 'y'),
      edit('dup.txt', 'x', 'y', { replace_all: true }),
      read('b.txt'),
      bash('sleep 1; echo changed > b.txt'),
      edit('b.txt', 'changed', 'again'),
      edit('missing.txt', 'a', 'b'),
      edit('new-by-edit.txt', '', 'created\n'),
    ],
  },
  {
    name: 'notebook',
    files: { 'nb.ipynb': notebook },
    env: { ENABLE_TOOL_SEARCH: 'false' },
    calls: [
      read('nb.ipynb'),
      nbEdit({ cell_id: 'c1', new_source: 'print(2)' }),
      read('nb.ipynb'),
      nbEdit({ cell_id: 'c2', new_source: 'x = 1', cell_type: 'code', edit_mode: 'insert' }),
      nbEdit({ cell_id: 'nope', new_source: 'y' }),
      nbEdit({ cell_id: 'c2', new_source: '', edit_mode: 'delete' }),
      nbEdit({ new_source: 'first', cell_type: 'markdown', edit_mode: 'insert' }),
      nbEdit({ cell_id: 'c1', new_source: 'z', edit_mode: 'replace', cell_type: 'markdown' }),
      { name: 'NotebookEdit', input: { notebook_path: '$DIR/missing.ipynb', cell_id: 'c1', new_source: 'q' } },
      { name: 'NotebookEdit', input: { notebook_path: '$DIR/a.txt', cell_id: 'c1', new_source: 'q' } },
    ],
  },
  {
    name: 'write',
    calls: [write('new.txt', 'hello\n'), write('a.txt', 'overwrite\n'), read('a.txt'), write('a.txt', 'overwrite\n'), write('deep/dir/file.txt', 'x')],
  },
];

/** A call's input with `$DIR` replaced by the project's path. */
export function concreteInput(input: Record<string, unknown>, dir: string): Record<string, unknown> {
  return JSON.parse(JSON.stringify(input).replaceAll('$DIR', dir)) as Record<string, unknown>;
}

export interface RecordedResult {
  readonly tool: string;
  readonly input: Record<string, unknown>;
  readonly isError: boolean;
  /** The tool_result's content: its text, or its blocks' texts (images as `[image]`), loop reminders left out. */
  readonly content: string | string[];
}

/**
 * Paths as placeholders, so two runs (and two implementations) compare equal. Where a large output is saved is each
 * one's own choice (Claude Code: under ~/.claude/projects; toolgate: its state folder): `$SAVED_OUTPUT`.
 */
export function normalize(text: string, dir: string, home: string): string {
  return text
    .replaceAll(dir, '$DIR')
    .replaceAll(home, '$HOME')
    .replace(/(Full output saved to: )\S+/g, '$1$$SAVED_OUTPUT')
    // A new notebook cell's id is random on both sides.
    .replace(/^(Inserted cell )\S+( with )/, '$1$$NEW_CELL$2');
}

/**
 * The reminders Claude Code's loop appends to a tool_result (the context budget, "the task tools haven't been used
 * recently"): the loop's, not the tool's, so not compared. A tool's own reminder has no newline after its tag.
 */
const LOOP_REMINDER = /\n\n<system-reminder>\n[\s\S]*?\n<\/system-reminder>$/;

/** The same reminders as blocks of their own (after a Read of a notebook: the tokens left, the task tools). */
const LOOP_REMINDER_BLOCK = /^<system-reminder>\n[\s\S]*<\/system-reminder>$/;

function withoutLoopReminders(text: string): string {
  let t = text;
  while (LOOP_REMINDER.test(t)) t = t.replace(LOOP_REMINDER, '');
  return t;
}

/** The tool_result of each call `toolu_call_<i>`, from the last request the model got. */
export function toolResultsOf(requests: readonly RecordedRequest[], calls: readonly ParityCall[], dir: string, home: string): RecordedResult[] {
  const blocks = new Map<string, { content?: unknown; is_error?: boolean }>();
  for (const r of requests) {
    const messages = (r.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
    for (const m of messages) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const b of m.content as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }[])
        if (b.type === 'tool_result' && b.tool_use_id !== undefined) blocks.set(b.tool_use_id, b);
    }
  }
  return calls.map((call, i) => {
    const b = blocks.get(`toolu_call_${i}`);
    let content: string | string[];
    if (b === undefined) content = '(no tool_result)';
    else if (typeof b.content === 'string') content = normalize(withoutLoopReminders(b.content), dir, home);
    else {
      const own = ((b.content as { type: string; text?: string }[] | undefined) ?? []).filter((c) => !(c.type === 'text' && LOOP_REMINDER_BLOCK.test(c.text ?? '')));
      const texts = own.map((c) => (c.type === 'text' ? normalize(withoutLoopReminders(c.text ?? ''), dir, home) : `[${c.type}]`));
      content = texts.length === 1 ? texts[0]! : texts;
    }
    return { tool: call.name, input: call.input, isError: b?.is_error === true, content };
  });
}
