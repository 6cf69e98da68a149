/**
 * One matcher for the rule language (issue 18): a hook's `if` and a permission rule with the same text match the same
 * calls, for every tool, by traits. Each rule text of the table is given to the engine as the only deny rule
 * (`resolvePermission`) and to a real hook runner as the `if` of a PreToolUse command hook, over a corpus of calls for
 * Bash, Read/Edit/Write, Glob/Grep, WebFetch, MCP tools and tools known only by their traits; the event is the one the
 * pipeline builds (`hookEvent`). The engine's deny is the hook's "matched", the engine's "cannot rule this rule out"
 * ask is the hook's "could not be ruled out", and anything else is the hook not running — always, not just on average.
 * Expected verdicts for the cells that matter (every `rm` spelling the engine sees through, a command it cannot parse)
 * keep the agreement from being vacuous; and hooks/ is checked to hold no rule parser of its own.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { hookEvent } from '../src/execution/hook-steps.js';
import { createHookRunner } from '../src/hooks/hook-runner.js';
import { parseHooksSettings } from '../src/hooks/parse-hooks-settings.js';
import { createPermissionContext, parseRules } from '../src/permissions/permission-context.js';
import { resolvePermission } from '../src/permissions/resolve.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { ToolPermissionContext } from '../src/tool/permission-types.js';
import type { AnyTool } from '../src/tool/tool.js';
import { createToolUseContext } from '../src/tool/tool-use-context.js';
import { BashTool } from '../src/tools/bash/index.js';
import { EditTool } from '../src/tools/edit/edit-tool.js';
import { GlobTool } from '../src/tools/glob/index.js';
import { GrepTool } from '../src/tools/grep/index.js';
import { ReadTool } from '../src/tools/read/read-tool.js';
import { WebFetchTool } from '../src/tools/web-fetch/index.js';
import { WriteTool } from '../src/tools/write/write-tool.js';
import { makeMcpTestTool } from './helpers/tools.js';

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'toolgate-one-matcher-')));
const proj = path.join(root, 'proj');
const home = path.join(root, 'home');
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeAll(() => {
  for (const d of [path.join(proj, 'src'), path.join(proj, '.claude'), path.join(home, '.aws')]) mkdirSync(d, { recursive: true });
  for (const f of ['.env', 'src/.env', 'src/a.ts', 'a.txt']) writeFileSync(path.join(proj, f), 'x\n');
  writeFileSync(path.join(home, '.aws', 'credentials'), 'secret\n');
});

/** Tools that are not built-ins: what they do is all the engine knows of them. */
const schema = z.looseObject({});
const traitTool = (name: string, permissionTraits: AnyTool['permissionTraits'], readOnly: boolean): AnyTool =>
  buildTool({ name, inputSchema: schema, permissionTraits, isReadOnly: () => readOnly, maxResultSizeChars: 1000, prompt: async () => name, call: async () => ({ data: '' }) });
const DeployTool = traitTool('Deploy', { kind: 'other', contentField: 'target' }, false);
const McpReadFile = traitTool('mcp__fs__read_file', { kind: 'read', pathField: 'path' }, true);
/** Named like Bash but declaring nothing: only whole-tool rules cover it. */
const NamedBash = traitTool('Bash', undefined, false);
const McpCreate = makeMcpTestTool('memory', 'create_entities');
const McpGraph = makeMcpTestTool('memory', 'read_graph');
const McpIssue = makeMcpTestTool('github', 'get_issue');

const RULES = [
  'Bash(rm *)',
  'Bash(git push:*)',
  'Bash(npm run test:*)',
  'Bash(curl *)',
  'Bash',
  'Bash(run_in_background:true)',
  'Read(./.env)',
  'Read(~/.aws/**)',
  'Read',
  'Edit(*.ts)',
  'Edit(/src/**)',
  'Write(./a.txt)',
  'Glob',
  'WebFetch(domain:example.com)',
  'WebFetch(domain:*.evil.test)',
  'mcp__memory',
  'mcp__memory__create_*',
  'mcp__github__get_issue',
  'Deploy(prod*)',
] as const;
type Rule = (typeof RULES)[number];

const RM_SPELLINGS = [
  'rm x', 'command rm x', 'env rm x', 'timeout 5 rm x', '/bin/rm x', 'xargs rm x', 'sudo rm', 'nice rm', "bash -c 'rm x'",
  'ls && rm x', 'ls | xargs -0 rm', 'echo $(rm x)', 'FOO=1 rm x', 'nohup rm -rf build', 'sh -c "rm -f y"', '"rm" x', 'r\\m x',
  'exec rm x', 'find . -exec rm {} \\;',
];

interface Call {
  readonly tool: AnyTool;
  readonly input: Record<string, unknown>;
  /** Verdicts this call must get (beyond agreeing): the cells that show the matcher sees what the engine sees. */
  readonly want?: Partial<Record<Rule, Verdict>>;
}
type Verdict = 'match' | 'maybe' | 'none';

const bash = (command: string, want?: Call['want'], extra: Record<string, unknown> = {}): Call => ({ tool: BashTool, input: { command, ...extra }, want });
const CALLS: readonly Call[] = [
  ...RM_SPELLINGS.map((c) => bash(c, { 'Bash(rm *)': 'match', Bash: 'match', 'Bash(git push:*)': 'none' })),
  bash('ls -la', { 'Bash(rm *)': 'none', Bash: 'match', 'Read(./.env)': 'none' }),
  bash('git push origin main', { 'Bash(git push:*)': 'match', 'Bash(rm *)': 'none' }),
  bash('cd sub && git push', { 'Bash(git push:*)': 'match' }),
  bash('git status'),
  bash('npm run test:unit', { 'Bash(npm run test:*)': 'match' }),
  bash('npm run build', { 'Bash(npm run test:*)': 'none' }),
  bash('curl https://example.com/x', { 'Bash(curl *)': 'match', 'WebFetch(domain:example.com)': 'none' }),
  // The command cannot be parsed, or only a value known at run time decides what runs: the hook runs.
  bash('ls ;; pwd', { 'Bash(rm *)': 'maybe' }),
  bash('$CMD x', { 'Bash(rm *)': 'maybe', 'Bash(curl *)': 'maybe' }),
  bash('eval "$X"', { 'Bash(rm *)': 'maybe' }),
  bash('rm $FLAGS', { 'Bash(rm *)': 'match' }),
  bash('cat .env', { 'Read(./.env)': 'match', 'Bash(rm *)': 'none' }),
  bash('cat .e*', { 'Read(./.env)': 'match' }),
  bash('cat $(echo .env)', { 'Read(./.env)': 'maybe' }),
  bash('head ~/.aws/credentials', { 'Read(~/.aws/**)': 'match' }),
  bash('echo x > src/b.ts', { 'Edit(*.ts)': 'match', 'Edit(/src/**)': 'match' }),
  bash('echo x > a.txt', { 'Write(./a.txt)': 'match', 'Edit(*.ts)': 'none' }),
  bash('sleep 1', { 'Bash(run_in_background:true)': 'match' }, { run_in_background: true }),
  bash('sleep 1', { 'Bash(run_in_background:true)': 'none' }),
  { tool: ReadTool, input: { file_path: path.join(proj, '.env') }, want: { 'Read(./.env)': 'match', Read: 'match', 'Edit(*.ts)': 'none' } },
  { tool: ReadTool, input: { file_path: path.join(proj, 'a.txt') }, want: { 'Read(./.env)': 'none' } },
  { tool: ReadTool, input: { file_path: path.join(home, '.aws', 'credentials') }, want: { 'Read(~/.aws/**)': 'match' } },
  { tool: ReadTool, input: { file_path: path.join(proj, 'src', 'a.ts') }, want: { 'Edit(*.ts)': 'none' } },
  { tool: EditTool, input: { file_path: path.join(proj, 'src', 'a.ts'), old_string: 'x', new_string: 'y' }, want: { 'Edit(*.ts)': 'match', 'Edit(/src/**)': 'match', Read: 'none' } },
  { tool: EditTool, input: { file_path: path.join(proj, '.env'), old_string: 'x', new_string: 'y' }, want: { 'Read(./.env)': 'match' } },
  { tool: WriteTool, input: { file_path: path.join(proj, 'a.txt'), content: 'y' }, want: { 'Write(./a.txt)': 'match', 'Edit(*.ts)': 'none' } },
  { tool: WriteTool, input: { file_path: path.join(proj, 'src', 'new.ts'), content: 'y' }, want: { 'Edit(*.ts)': 'match' } },
  { tool: GlobTool, input: { pattern: '**/*.ts' }, want: { Glob: 'match', Read: 'none' } },
  { tool: GrepTool, input: { pattern: 'x', path: path.join(proj, 'src') } },
  { tool: WebFetchTool, input: { url: 'https://example.com/a', prompt: 'p' }, want: { 'WebFetch(domain:example.com)': 'match', 'WebFetch(domain:*.evil.test)': 'none' } },
  { tool: WebFetchTool, input: { url: 'https://sub.example.com/a', prompt: 'p' }, want: { 'WebFetch(domain:example.com)': 'none' } },
  { tool: WebFetchTool, input: { url: 'https://a.evil.test/', prompt: 'p' }, want: { 'WebFetch(domain:*.evil.test)': 'match' } },
  { tool: WebFetchTool, input: { url: 'not a url', prompt: 'p' }, want: { 'WebFetch(domain:example.com)': 'maybe' } },
  { tool: McpCreate, input: { q: 'x' }, want: { mcp__memory: 'match', 'mcp__memory__create_*': 'match', mcp__github__get_issue: 'none', Bash: 'none' } },
  { tool: McpGraph, input: {}, want: { mcp__memory: 'match', 'mcp__memory__create_*': 'none' } },
  { tool: McpIssue, input: {}, want: { mcp__github__get_issue: 'match', mcp__memory: 'none' } },
  // By traits, not names: an MCP tool that reads a path is governed by Read rules; a tool merely named Bash is not by Bash's.
  { tool: McpReadFile, input: { path: path.join(proj, '.env') }, want: { 'Read(./.env)': 'match', Read: 'none' } },
  { tool: NamedBash, input: { command: 'rm x' }, want: { 'Bash(rm *)': 'none', Bash: 'match' } },
  { tool: DeployTool, input: { target: 'prod-eu' }, want: { 'Deploy(prod*)': 'match' } },
  { tool: DeployTool, input: { target: 'staging' }, want: { 'Deploy(prod*)': 'none' } },
];

const settingsFile = path.join(proj, '.claude', 'settings.json');

function contextWith(rule: string | undefined): ToolPermissionContext {
  return createPermissionContext({
    cwd: proj,
    homeDir: home,
    rules: rule === undefined ? [] : parseRules([rule], 'deny', 'projectSettings', { sourceFile: settingsFile }),
  });
}

/** The engine's answer with this rule as the only deny rule. */
async function engineVerdict(call: Call, rule: Rule): Promise<Verdict> {
  const d = await resolvePermission(call.tool, call.input, contextWith(rule));
  if (d.behavior === 'deny') return 'match';
  if (d.behavior === 'ask' && d.decisionReason?.rule === rule) return 'maybe';
  return 'none';
}

/** Which `if` rules let their hook run, through a real runner and the event the pipeline builds. */
async function hookVerdicts(call: Call): Promise<Map<Rule, Verdict>> {
  const handlers = RULES.map((rule, i) => ({ type: 'command', if: rule, command: `echo R${i} >&2; exit 2` }));
  const parsed = parseHooksSettings([{ source: 'projectSettings', file: settingsFile, hooks: { PreToolUse: [{ hooks: handlers }] } }]);
  expect(parsed.errors).toEqual([]);
  const runner = createHookRunner({ config: parsed.config, sessionDir: path.join(root, 'session'), env: { PATH: process.env.PATH } });
  const context = createToolUseContext({ tools: [call.tool], permissionContext: contextWith(undefined), sessionDir: path.join(root, 'session') });
  const out = await runner.preToolUse(hookEvent(call.tool, call.input, 'toolu_1', context), new AbortController().signal);
  const ran = new Map<Rule, Verdict>(RULES.map((r) => [r, 'none']));
  // Each hook that ran blocked with its index; the decision's source names the first one and how its `if` read.
  for (const m of (out.decision?.reason ?? '').matchAll(/R(\d+)/g)) ran.set(RULES[Number(m[1])]!, 'match');
  const sources = runnerSources(out.decision?.source);
  for (const [rule, verdict] of ran) if (verdict === 'match' && sources.get(rule) === 'maybe') ran.set(rule, 'maybe');
  return ran;
}

/** Labels of the hooks that decided: `[if RULE matched…]` or `[if RULE could not be ruled out…]`. */
function runnerSources(source: string | undefined): Map<string, Verdict> {
  const out = new Map<string, Verdict>();
  for (const m of (source ?? '').matchAll(/\[if (.+?) (matched|could not be ruled out)/g)) out.set(m[1]!, m[2] === 'matched' ? 'match' : 'maybe');
  return out;
}

describe('a hook `if` and a deny rule with the same text match the same calls', () => {
  it.each(CALLS.map((c) => [`${c.tool.name} ${JSON.stringify(c.input)}`, c] as const))('%s', async (_name, call) => {
    const hooks = await hookVerdicts(call);
    for (const rule of RULES) {
      const engine = await engineVerdict(call, rule);
      const hook = hooks.get(rule)!;
      // "maybe" and "match" both run the hook; which of the two it was is only visible for the hook that decided.
      expect(hook === 'none', `${rule}: engine ${engine}, hook ${hook}`).toBe(engine === 'none');
      const want = call.want?.[rule];
      if (want !== undefined) expect(engine, rule).toBe(want);
    }
  });

  it('the hook that decided names its rule and whether it matched or could not be ruled out', async () => {
    const one = async (rule: string, call: Call) => {
      const parsed = parseHooksSettings([{ source: 'projectSettings', file: settingsFile, hooks: { PreToolUse: [{ hooks: [{ type: 'command', if: rule, command: 'exit 2' }] }] } }]);
      const runner = createHookRunner({ config: parsed.config, sessionDir: path.join(root, 'session') });
      const context = createToolUseContext({ tools: [call.tool], permissionContext: contextWith(undefined), sessionDir: path.join(root, 'session') });
      return (await runner.preToolUse(hookEvent(call.tool, call.input, 'toolu_1', context), new AbortController().signal)).decision?.source;
    };
    expect(await one('Bash(rm *)', bash('ls && timeout 5 rm -rf build'))).toMatch(/\[if Bash\(rm \*\) matched: timeout 5 rm -rf build\]$/);
    expect(await one('Bash(rm *)', bash('ls ;; pwd'))).toMatch(/\[if Bash\(rm \*\) could not be ruled out: /);
    expect(await one('Read(./.env)', bash('cat .e*'))).toMatch(/\[if Read\(\.\/\.env\) matched: cat \.e\*\]$/);
    expect(await one('Bash(rm *)', bash('ls'))).toBeUndefined();
  });
});

describe('hooks/ has no rule matcher of its own', () => {
  it('no hooks module exports anything that parses or matches permission rules', async () => {
    const dir = path.join(import.meta.dirname, '../src/hooks');
    const names: string[] = [];
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!/\.ts$/.test(f) || /\.test\.ts$/.test(f) || f.includes('test-helpers')) continue;
      names.push(...Object.keys((await import(path.join(dir, f))) as object).map((n) => `${f}:${n}`));
    }
    expect(names.length).toBeGreaterThan(10); // the modules were read at all
    expect(names.filter((n) => /:(?:.*If|.*Rule|matchesIf|parseIf)/.test(n))).toEqual([]);
  });

  it('no hooks module parses rule text or matches commands, paths or domains itself', () => {
    const dir = path.join(import.meta.dirname, '../src/hooks');
    const offenders: string[] = [];
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(f) || /\.test\.tsx?$/.test(f)) continue;
      const text = readFileSync(path.join(dir, f), 'utf8');
      // What a second matcher needs: glob libraries, rule-shaped regexes, its own tokenising of commands or URLs.
      for (const sign of [/from 'picomatch'/, /from 'minimatch'/, /parseMcpToolName/, /new URL\(/, /\bsubcommands?\(/, /\\\(\(\[\\s\\S\]\*\)\\\)/, /:\\\*\$/]) {
        if (sign.test(text)) offenders.push(`${f}: ${sign}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
