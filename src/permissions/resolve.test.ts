import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { makeMcpTestTool, makeTestTool } from '../../test/helpers/tools.js';
import { buildTool } from '../tool/build-tool.js';
import type { PermissionDecision, PermissionMode, PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { createToolUseContext } from '../tool/tool-use-context.js';
import { createPermissionContext, parseRules } from './permission-context.js';
import { hasPermissionsToUseTool } from './resolve.js';

let proj: string;
let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-resolve-')));
  proj = path.join(tmp, 'proj');
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const fileSchema = z.object({ file_path: z.string() });
function fileTool(name: string, readOnly: boolean, check?: AnyTool['checkPermissions']): AnyTool {
  return buildTool<typeof fileSchema, string>({
    name,
    permissionTraits: { kind: readOnly ? 'read' : 'write', pathField: 'file_path' },
    inputSchema: fileSchema,
    maxResultSizeChars: 1000,
    prompt: async () => name,
    call: async () => ({ data: '' }),
    isReadOnly: () => readOnly,
    getPath: (input) => input.file_path,
    ...(check ? { checkPermissions: check as never } : {}),
  });
}
const Read = fileTool('Read', true);
const Edit = fileTool('Edit', false);
const Write = fileTool('Write', false);
const WebFetch = buildTool({
  name: 'WebFetch',
  permissionTraits: { kind: 'fetch', urlField: 'url' },
  inputSchema: z.object({ url: z.string(), prompt: z.string() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'fetch',
  call: async () => ({ data: '' }),
  isReadOnly: () => true,
});
const Agent = buildTool({
  name: 'Agent',
  permissionTraits: { kind: 'other', contentField: 'subagent_type' },
  inputSchema: z.looseObject({ subagent_type: z.string(), prompt: z.string() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'agent',
  call: async () => ({ data: '' }),
});
const ReadOnlyTool = makeTestTool('TaskList', { isReadOnly: () => true });
const mcpReadOnly = { ...makeMcpTestTool('github', 'get_issue'), isReadOnly: () => true } as AnyTool;

function ctxOf(rules: { allow?: string[]; deny?: string[]; ask?: string[] } = {}, mode: PermissionMode = 'default', extra: PermissionRule[] = []): ToolPermissionContext {
  return createPermissionContext({
    cwd: proj,
    homeDir: path.join(tmp, 'home'),
    mode,
    rules: [
      ...parseRules(rules.allow ?? [], 'allow', 'projectSettings', { sourceFile: path.join(proj, '.claude/settings.json') }),
      ...parseRules(rules.deny ?? [], 'deny', 'userSettings', { sourceFile: '/home/u/.claude/settings.json' }),
      ...parseRules(rules.ask ?? [], 'ask', 'localSettings'),
      ...extra,
    ],
  });
}

async function decide(tool: AnyTool, input: Record<string, unknown>, ctx: ToolPermissionContext, hook?: PermissionDecision) {
  const context = createToolUseContext({ tools: [tool], permissionContext: ctx, sessionDir: tmp });
  const d = await hasPermissionsToUseTool(tool, input, context, hook);
  return { behavior: d.behavior, layer: d.decisionReason?.layer, rule: d.decisionReason?.rule, source: d.decisionReason?.source, d };
}

const inSrc = () => ({ file_path: path.join(proj, 'src', 'a.ts') });
const hookAllow: PermissionDecision = { behavior: 'allow', decisionReason: { layer: 'hook', reason: 'policy hook says ok' } };

describe('resolution chain: rules', () => {
  it('a deny anywhere beats an allow anywhere (user deny vs project allow, tool-level vs content)', async () => {
    expect(await decide(Edit, inSrc(), ctxOf({ allow: ['Edit(./src/**)'], deny: ['Edit'] }))).toMatchObject({ behavior: 'deny', layer: 'denyRule', rule: 'Edit', source: 'userSettings' });
    expect(await decide(Edit, inSrc(), ctxOf({ allow: ['Edit'], deny: ['Edit(src/**)'] }))).toMatchObject({ behavior: 'deny', rule: 'Edit(src/**)' });
    const policyAllow = parseRules(['Read(./src/**)'], 'allow', 'policySettings');
    expect(await decide(Read, inSrc(), ctxOf({ deny: ['Read(./src/**)'] }, 'default', policyAllow))).toMatchObject({ behavior: 'deny' });
  });
  it('ask rules come before allow rules and hold in bypassPermissions', async () => {
    expect(await decide(Edit, inSrc(), ctxOf({ allow: ['Edit'], ask: ['Edit(./src/**)'] }))).toMatchObject({ behavior: 'ask', layer: 'askRule', source: 'localSettings' });
    expect(await decide(Edit, inSrc(), ctxOf({ ask: ['Edit'] }, 'bypassPermissions'))).toMatchObject({ behavior: 'ask', layer: 'askRule' });
  });
  it('allow rules allow, sourceFile named', async () => {
    const r = await decide(Edit, inSrc(), ctxOf({ allow: ['Edit(./src/**)'] }));
    expect(r).toMatchObject({ behavior: 'allow', layer: 'allowRule', rule: 'Edit(./src/**)', source: 'projectSettings' });
    expect(r.d.decisionReason?.sourceFile).toBe(path.join(proj, '.claude/settings.json'));
  });
  it('Edit rules cover Write; a bare Write allow covers the working directories only', async () => {
    expect(await decide(Write, inSrc(), ctxOf({ allow: ['Edit(./src/**)'] }))).toMatchObject({ behavior: 'allow' });
    expect(await decide(Write, inSrc(), ctxOf({ allow: ['Write'] }))).toMatchObject({ behavior: 'allow', rule: 'Write' });
    expect(await decide(Write, { file_path: path.join(tmp, 'elsewhere') }, ctxOf({ allow: ['Write'] }))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
  });
  it('unmatched writes prompt and suggest the rule that would allow them', async () => {
    const r = await decide(Edit, inSrc(), ctxOf());
    expect(r).toMatchObject({ behavior: 'ask', layer: 'prompt' });
    expect(r.d.behavior === 'ask' && r.d.suggestions).toEqual([{ toolName: 'Edit', ruleContent: './src/**' }]);
  });
});

describe('resolution chain: hooks', () => {
  it('a hook deny stands over an allow rule', async () => {
    const hook: PermissionDecision = { behavior: 'deny', message: 'no', decisionReason: { layer: 'hook', reason: 'blocked by hook' } };
    expect(await decide(Read, inSrc(), ctxOf({ allow: ['Read'] }), hook)).toMatchObject({ behavior: 'deny', layer: 'hook' });
  });
  it('a hook ask stands over an allow rule but a deny rule still wins', async () => {
    const hook: PermissionDecision = { behavior: 'ask', message: 'sure?' };
    expect(await decide(Read, inSrc(), ctxOf({ allow: ['Read'] }), hook)).toMatchObject({ behavior: 'ask', layer: 'hook' });
    expect(await decide(Read, inSrc(), ctxOf({ deny: ['Read(./src/**)'] }), hook)).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
  });
  it('a hook allow skips the prompt, but deny rules, ask rules and plan mode still apply', async () => {
    expect(await decide(Edit, inSrc(), ctxOf(), hookAllow)).toMatchObject({ behavior: 'allow', layer: 'hook' });
    expect(await decide(Edit, inSrc(), ctxOf({ deny: ['Edit'] }), hookAllow)).toMatchObject({ behavior: 'deny', layer: 'denyRule' });
    expect(await decide(Edit, inSrc(), ctxOf({ ask: ['Edit(./src/**)'] }), hookAllow)).toMatchObject({ behavior: 'ask', layer: 'askRule' });
    expect(await decide(Edit, inSrc(), ctxOf({}, 'plan'), hookAllow)).toMatchObject({ behavior: 'deny', layer: 'mode' });
  });
  it('a hook allow approves a protected path (a person could) but not an adversarial-looking input', async () => {
    expect(await decide(Edit, { file_path: path.join(proj, '.git', 'config') }, ctxOf(), hookAllow)).toMatchObject({ behavior: 'allow', layer: 'hook' });
    expect(await decide(Edit, { file_path: `${proj}/a\u0007b` }, ctxOf(), hookAllow)).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
  });
});

describe('resolution chain: tool checks and modes', () => {
  it("a tool's own deny wins; its allow is only 'no objection'", async () => {
    const refusing = fileTool('Edit', false, async () => ({ behavior: 'deny', message: 'file too large', decisionReason: { layer: 'toolCheck', reason: 'file too large' } }));
    expect(await decide(refusing, inSrc(), ctxOf({ allow: ['Edit'] }))).toMatchObject({ behavior: 'deny', layer: 'toolCheck' });
    const permissive = fileTool('Edit', false, async (input) => ({ behavior: 'allow', updatedInput: input }));
    expect(await decide(permissive, inSrc(), ctxOf())).toMatchObject({ behavior: 'ask', layer: 'prompt' });
  });
  it('a throwing tool check asks', async () => {
    const broken = fileTool('Read', true, async () => {
      throw new Error('boom');
    });
    expect(await decide(broken, inSrc(), ctxOf())).toMatchObject({ behavior: 'ask', layer: 'toolCheck' });
  });
  it('plan denies writes and allows reads', async () => {
    expect(await decide(Edit, inSrc(), ctxOf({ allow: ['Edit'] }, 'plan'))).toMatchObject({ behavior: 'deny', layer: 'mode' });
    expect(await decide(Read, inSrc(), ctxOf({}, 'plan'))).toMatchObject({ behavior: 'allow' });
    expect(await decide(makeTestTool('TodoWrite'), {}, ctxOf({}, 'plan'))).toMatchObject({ behavior: 'deny', layer: 'mode' });
  });
  it('bypassPermissions allows all but deny and ask rules, protected paths included', async () => {
    expect(await decide(Edit, { file_path: path.join(proj, '.git', 'hooks', 'pre-commit') }, ctxOf({}, 'bypassPermissions'))).toMatchObject({ behavior: 'allow', layer: 'mode' });
    expect(await decide(Edit, { file_path: '/etc/hosts' }, ctxOf({}, 'bypassPermissions'))).toMatchObject({ behavior: 'allow' });
    expect(await decide(makeTestTool('Anything'), {}, ctxOf({}, 'bypassPermissions'))).toMatchObject({ behavior: 'allow' });
    expect(await decide(Edit, inSrc(), ctxOf({ deny: ['Edit'] }, 'bypassPermissions'))).toMatchObject({ behavior: 'deny' });
  });
  it('acceptEdits allows writes inside the working directories, not protected paths or outside', async () => {
    expect(await decide(Edit, inSrc(), ctxOf({}, 'acceptEdits'))).toMatchObject({ behavior: 'allow', layer: 'mode' });
    expect(await decide(Edit, { file_path: path.join(proj, '.claude', 'settings.json') }, ctxOf({ allow: ['Edit(./.claude/**)'] }, 'acceptEdits'))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(await decide(Edit, { file_path: path.join(tmp, 'x') }, ctxOf({}, 'acceptEdits'))).toMatchObject({ behavior: 'ask' });
    expect(await decide(makeTestTool('TodoWrite'), {}, ctxOf({}, 'acceptEdits'))).toMatchObject({ behavior: 'ask' });
  });
  it('dontAsk denies what would prompt, naming the rule to add, and keeps allow rules working', async () => {
    const r = await decide(Edit, inSrc(), ctxOf({}, 'dontAsk'));
    expect(r).toMatchObject({ behavior: 'deny', layer: 'mode' });
    expect(r.d.behavior === 'deny' && r.d.message).toMatch(/add "Edit\(\.\/src\/\*\*\)" to permissions\.allow/);
    expect(await decide(Edit, inSrc(), ctxOf({ allow: ['Edit(./src/**)'] }, 'dontAsk'))).toMatchObject({ behavior: 'allow' });
    expect(await decide(Edit, inSrc(), ctxOf({ ask: ['Edit'] }, 'dontAsk'))).toMatchObject({ behavior: 'deny', layer: 'mode', rule: 'Edit' });
    expect(await decide(Read, inSrc(), ctxOf({}, 'dontAsk'))).toMatchObject({ behavior: 'allow' });
  });
  it('auto and bubble leave the ask to createCanUseTool', async () => {
    expect(await decide(Edit, inSrc(), ctxOf({}, 'auto'))).toMatchObject({ behavior: 'ask' });
    expect(await decide(Edit, inSrc(), ctxOf({}, 'bubble'))).toMatchObject({ behavior: 'ask' });
  });
});

describe('resolution chain: read-only, MCP, WebFetch, Agent', () => {
  it('read-only built-ins are allowed; read-only MCP tools still ask', async () => {
    expect(await decide(ReadOnlyTool, {}, ctxOf())).toMatchObject({ behavior: 'allow', layer: 'readOnly' });
    expect(await decide(mcpReadOnly, {}, ctxOf())).toMatchObject({ behavior: 'ask' });
    expect(await decide(mcpReadOnly, {}, ctxOf({ allow: ['mcp__github'] }))).toMatchObject({ behavior: 'allow', rule: 'mcp__github' });
    expect(await decide(mcpReadOnly, {}, ctxOf({ allow: ['mcp__github'], deny: ['mcp__github__get_*'] }))).toMatchObject({ behavior: 'deny' });
    expect(await decide(mcpReadOnly, {}, ctxOf({ allow: ['mcp__github__*'] }))).toMatchObject({ behavior: 'allow' });
    expect(await decide(mcpReadOnly, {}, ctxOf({ allow: ['mcp__gitlab'] }))).toMatchObject({ behavior: 'ask' });
  });
  it('WebFetch is allowed by domain only', async () => {
    const fetch = (url: string) => ({ url, prompt: 'p' });
    const rules = { allow: ['WebFetch(domain:*.example.com)', 'WebFetch(domain:docs.rs)'], deny: ['WebFetch(domain:evil.example.com)'] };
    expect(await decide(WebFetch, fetch('https://api.example.com/x'), ctxOf(rules))).toMatchObject({ behavior: 'allow', rule: 'WebFetch(domain:*.example.com)' });
    expect(await decide(WebFetch, fetch('https://evil.example.com/'), ctxOf(rules))).toMatchObject({ behavior: 'deny' });
    expect(await decide(WebFetch, fetch('https://example.com/'), ctxOf(rules))).toMatchObject({ behavior: 'ask', layer: 'prompt' });
    expect(await decide(WebFetch, fetch('https://docs.rs.evil.net/'), ctxOf(rules))).toMatchObject({ behavior: 'ask' });
    expect(await decide(WebFetch, fetch('::nonsense'), ctxOf(rules))).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    const r = await decide(WebFetch, fetch('https://new.site.org/a'), ctxOf());
    expect(r.d.behavior === 'ask' && r.d.suggestions).toEqual([{ toolName: 'WebFetch', ruleContent: 'domain:new.site.org' }]);
  });
  it('Agent rules match the subagent type; parameter rules deny by field', async () => {
    expect(await decide(Agent, { subagent_type: 'Explore', prompt: 'x' }, ctxOf({ allow: ['Task(Explore)'] }))).toMatchObject({ behavior: 'allow', rule: 'Agent(Explore)' });
    expect(await decide(Agent, { subagent_type: 'general', prompt: 'x' }, ctxOf({ allow: ['Agent(Explore)'] }))).toMatchObject({ behavior: 'ask' });
    expect(await decide(Agent, { subagent_type: 'Explore', prompt: 'x', model: 'opus' }, ctxOf({ allow: ['Agent'], deny: ['Agent(model:opus*)'] }))).toMatchObject({ behavior: 'deny', rule: 'Agent(model:opus*)' });
    expect(await decide(Agent, { subagent_type: 'Explore', prompt: 'x', model: 'haiku' }, ctxOf({ allow: ['Agent'], deny: ['Agent(model:opus*)'] }))).toMatchObject({ behavior: 'allow' });
  });
  it('a glob pattern that leaves its path is judged where it goes', async () => {
    const Glob = buildTool({
      name: 'Glob',
      permissionTraits: { kind: 'search', pathField: 'path', patternField: 'pattern' },
      inputSchema: z.object({ pattern: z.string(), path: z.string().optional() }),
      maxResultSizeChars: 1000,
      prompt: async () => 'glob',
      call: async () => ({ data: '' }),
      isReadOnly: () => true,
    });
    expect(await decide(Glob, { pattern: '**/*.ts' }, ctxOf())).toMatchObject({ behavior: 'allow' });
    expect(await decide(Glob, { pattern: '/etc/*.conf' }, ctxOf())).toMatchObject({ behavior: 'ask', layer: 'safetyCheck' });
    expect(await decide(Glob, { pattern: '../../**/id_rsa' }, ctxOf())).toMatchObject({ behavior: 'ask' });
    expect(await decide(Glob, { pattern: '**/*', path: '/' }, ctxOf({ deny: ['Read(//**)'] }))).toMatchObject({ behavior: 'deny' });
  });
});
