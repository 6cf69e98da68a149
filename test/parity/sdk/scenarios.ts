/**
 * The Agent SDK parity scenarios: each a scripted model conversation, options and a temp project, run the same way
 * through `toolgate/agent-sdk` and through the real Agent SDK (recordings/), compared value by value.
 */
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { RecordedRequest, ScriptedResponse } from '../../../src/testing/index.js';
import { currentSdk, put, type ParityContext, type ParityScenario } from './run.js';

const text = (t: string): ScriptedResponse => ({ content: [{ type: 'text', text: t }] });
const use = (name: string, input: Record<string, unknown>, before?: string): ScriptedResponse => ({
  content: [...(before ? [{ type: 'text' as const, text: before }] : []), { type: 'tool_use', name, input }],
});
const write = (ctx: ParityContext, before?: string) => use('Write', { file_path: path.join(ctx.dir, 'x.txt'), content: 'x\n' }, before);
const preToolUse = (answer: Record<string, unknown>, mark?: (w: string) => void) => ({
  PreToolUse: [{ hooks: [async (input: { tool_name: string }) => (mark?.(`PreToolUse:${input.tool_name}`), answer)] }],
});

export const PARITY_SCENARIOS: readonly ParityScenario[] = [
  {
    name: 'deny-headless',
    about: 'no rule allows Write and nobody can approve: the denial text, the permission_denied message, the result',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('could not write')],
  },
  {
    name: 'deny-headless-bash',
    about: 'no rule allows a Bash command and nobody can approve',
    prompt: 'make a folder',
    turns: () => [use('Bash', { command: 'mkdir made', description: 'make it' }), text('could not')],
  },
  {
    name: 'deny-headless-read-outside',
    about: 'a Read outside the working folders, headless',
    prompt: 'read it',
    setup: (dir) => put(path.dirname(dir), `${path.basename(dir)}-outside.txt`, 'secret\n'),
    turns: (ctx) => [use('Read', { file_path: `${ctx.dir}-outside.txt` }), text('could not')],
  },
  {
    name: 'deny-can-use-tool-message',
    about: "canUseTool denies with a message: the tool_result is the program's message",
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({ canUseTool: async () => ({ behavior: 'deny', message: 'no writes today' }) }),
  },
  {
    name: 'deny-can-use-tool-no-message',
    about: 'canUseTool denies without a message',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({ canUseTool: async () => ({ behavior: 'deny' }) }),
  },
  {
    name: 'deny-can-use-tool-interrupt',
    about: 'canUseTool denies and interrupts: the turn ends there',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({ canUseTool: async () => ({ behavior: 'deny', message: 'stop now', interrupt: true }) }),
  },
  {
    name: 'allow-can-use-tool-updated',
    about: 'canUseTool allows with updatedInput: the file has the updated content',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('written')],
    options: () => ({ canUseTool: async (_n: string, input: Record<string, unknown>) => ({ behavior: 'allow', updatedInput: { ...input, content: 'changed\n' } }) }),
  },
  {
    name: 'deny-hook-reason',
    about: "a PreToolUse hook denies with a reason: the hook's error text; the hook runs after the tool_use was yielded",
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx, 'writing'), text('ok')],
    options: (ctx) => ({ hooks: preToolUse({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hook says no' } }, ctx.mark) }),
  },
  {
    name: 'deny-hook-no-reason',
    about: 'a PreToolUse hook denies without a reason',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({ hooks: preToolUse({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny' } }) }),
  },
  {
    name: 'hook-block-decision',
    about: "a PreToolUse hook answers the older { decision: 'block', reason }",
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({ hooks: preToolUse({ decision: 'block', reason: 'blocked by policy' }) }),
  },
  {
    name: 'hook-throws',
    about: 'a PreToolUse hook callback throws',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx), text('ok')],
    options: () => ({
      allowedTools: ['Write'],
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => {
                throw new Error('hook broke');
              },
            ],
          },
        ],
      },
    }),
  },
  {
    name: 'post-hook-block',
    about: "a PostToolUse hook answers { decision: 'block', reason }: what the model is told",
    prompt: 'say hi',
    turns: () => [use('Bash', { command: 'echo hi', description: 'say hi' }), text('ok')],
    options: () => ({ allowedTools: ['Bash(echo hi)'], hooks: { PostToolUse: [{ hooks: [async () => ({ decision: 'block', reason: 'post says no' })] }] } }),
  },
  {
    name: 'hook-continue-false',
    about: 'a PreToolUse hook answers continue: false: the session ends with the stop reason, the SDK way',
    prompt: 'write x.txt',
    turns: (ctx) => [write(ctx, 'writing'), text('never')],
    options: (ctx) => ({ hooks: preToolUse({ continue: false, stopReason: 'the hook stopped it' }, ctx.mark), allowedTools: ['Write'] }),
  },
  {
    name: 'hook-order-allowed',
    about: 'an allowed call: the PreToolUse hook runs after the assistant message with the tool_use',
    prompt: 'say hi',
    turns: () => [use('Bash', { command: 'echo hi', description: 'say hi' }, 'running it'), text('said hi')],
    options: (ctx) => ({ hooks: preToolUse({}, ctx.mark), allowedTools: ['Bash(echo hi)'] }),
  },
  {
    name: 'result-rule',
    about: "result.result is the last assistant message's text, whatever came before",
    prompt: 'say hi',
    turns: () => [use('Bash', { command: 'echo hi', description: 'say hi' }, 'first I run it'), { content: [{ type: 'text', text: 'part one' }, { type: 'text', text: 'part two' }] }],
    options: () => ({ allowedTools: ['Bash(echo hi)'] }),
  },
  {
    name: 'max-turns',
    about: 'maxTurns reached: error_max_turns with num_turns, stop_reason and errors; the stream throws',
    prompt: 'loop',
    turns: () => [use('Bash', { command: 'echo hi', description: 'hi' }), use('Bash', { command: 'echo hi', description: 'hi' }), use('Bash', { command: 'echo hi', description: 'hi' })],
    options: () => ({ maxTurns: 2, allowedTools: ['Bash(echo hi)'] }),
  },
  {
    name: 'resume-texts',
    about: 'a resumed session sends the earlier conversation as it was (no stray text around it)',
    prompt: 'remember the word apple',
    turns: () => [text('I will remember apple.')],
    resume: { prompt: 'which word?', turns: () => [text('apple')] },
    requests: (requests) => conversationTexts(requests.at(-1)),
  },
  {
    name: 'agent-loose-definition',
    about: 'an agent definition with an unexpected key and no description is tolerated',
    prompt: 'hi',
    turns: () => [text('hello')],
    options: () => ({ agents: { helper: { prompt: 'You help.', tools: ['Bash'], color: 'blue', extra: 1 } } }),
  },
  {
    name: 'effort-high',
    about: "effort: the request carries the output config and beta Claude Code sends for the model",
    prompt: 'hi',
    turns: () => [text('hello')],
    options: () => ({ effort: 'high' }),
    requests: (requests) => ({
      output_config: requests[0]?.body?.output_config,
      effortBetas: (requests[0]?.headers['anthropic-beta'] ?? '').split(',').filter((b) => /effort/.test(b)),
    }),
  },
  {
    name: 'seed-read-state',
    about: 'seedReadState(path, mtime) before the prompt: an Edit without a Read goes through',
    prompt: 'edit a.txt',
    setup: (dir) => put(dir, 'a.txt', 'one\n'),
    control: async (q, ctx) => q.seedReadState!(path.join(ctx.dir, 'a.txt'), Math.floor(statSync(path.join(ctx.dir, 'a.txt')).mtimeMs)),
    turns: (ctx) => [use('Edit', { file_path: path.join(ctx.dir, 'a.txt'), old_string: 'one', new_string: 'two' }), text('edited')],
    options: () => ({ permissionMode: 'acceptEdits' }),
  },
  {
    name: 'seed-read-state-stale',
    about: 'seedReadState with an mtime older than the file: not seeded, the Edit asks for a Read',
    prompt: 'edit a.txt',
    setup: (dir) => put(dir, 'a.txt', 'one\n'),
    control: async (q, ctx) => q.seedReadState!(path.join(ctx.dir, 'a.txt'), Math.floor(statSync(path.join(ctx.dir, 'a.txt')).mtimeMs) - 60_000),
    turns: (ctx) => [use('Edit', { file_path: path.join(ctx.dir, 'a.txt'), old_string: 'one', new_string: 'two' }), text('could not')],
    options: () => ({ permissionMode: 'acceptEdits' }),
  },
  {
    name: 'apply-flag-settings-allow',
    about: 'applyFlagSettings({ permissions: { allow } }) before the prompt: a headless Write is allowed',
    prompt: 'write x.txt',
    control: async (q) => q.applyFlagSettings!({ permissions: { allow: ['Write'] } }),
    turns: (ctx) => [write(ctx), text('written')],
  },
  {
    name: 'reload-skills',
    about: 'a skill written after the start: reloadSkills() lists it (names and descriptions of the project skills)',
    prompt: 'hi',
    control: async (q, ctx) => {
      mkdirSync(path.join(ctx.dir, '.claude', 'skills', 'greet'), { recursive: true });
      put(ctx.dir, '.claude/skills/greet/SKILL.md', '---\ndescription: Greets the user\n---\nSay hello.\n');
      const { skills } = (await q.reloadSkills!()) as { skills: { name: string; description: string; argumentHint: string }[] };
      return skills.filter((s) => s.name === 'greet');
    },
    turns: () => [text('hello')],
    options: () => ({ settingSources: ['project'] }),
  },
  {
    name: 'mcp-mode-override',
    about: "setMcpPermissionModeOverride(server, 'default') under bypassPermissions: the server's call is asked for (headless: denied)",
    prompt: 'add',
    control: async (q) => q.setMcpPermissionModeOverride!('calc', 'default'),
    turns: () => [use('mcp__calc__add', { a: 1, b: 2 }), text('done')],
    // IS_SANDBOX: Claude Code refuses bypassPermissions to root otherwise (recordings are made in a container).
    options: () => ({ permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true, mcpServers: { calc: calcServer() }, env: { IS_SANDBOX: '1' } }),
  },
  {
    name: 'resume-at-yielded-uuid',
    about: 'resumeSessionAt with the uuid of the first assistant message the program was handed',
    prompt: 'remember the word apple',
    turns: () => [use('Bash', { command: 'echo apple', description: 'say it' }, 'saying it'), text('I will remember apple.')],
    options: () => ({ allowedTools: ['Bash(echo apple)'] }),
    // The tool result's message: the conversation goes on without the answer that came after it.
    resumeAt: (messages) => messages.find((m) => m.type === 'user' && JSON.stringify(m.message).includes('tool_result'))?.uuid as string | undefined,
    resume: { prompt: 'which word?', turns: () => [text('apple')], options: () => ({ allowedTools: ['Bash(echo apple)'] }) },
    requests: (requests) => conversationTexts(requests.at(-1)),
  },
];

/** An in-process MCP server with one tool, of whichever SDK runs the scenario (set by run.ts). */
function calcServer(): unknown {
  const sdk = currentSdk();
  return sdk.createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [sdk.tool('add', 'Adds', { a: z.number(), b: z.number() }, async ({ a, b }: { a: number; b: number }) => ({ content: [{ type: 'text', text: String(a + b) }] }))] });
}

/** The user and assistant texts of a request's conversation (the model's view), reminders left out. */
function conversationTexts(request: RecordedRequest | undefined): unknown {
  const messages = (request?.body?.messages ?? []) as { role: string; content: unknown }[];
  return messages.map((m) => ({
    role: m.role,
    texts: (typeof m.content === 'string' ? [m.content] : (m.content as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text ?? '')).filter(
      (t) => !t.trimStart().startsWith('<system-reminder>'),
    ),
  }));
}

export { put };
