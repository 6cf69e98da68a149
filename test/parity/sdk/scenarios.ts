/**
 * The Agent SDK parity scenarios: each a scripted model conversation, options and a temp project, run the same way
 * through `toolgate/agent-sdk` and through the real Agent SDK (recordings/), compared value by value.
 */
import path from 'node:path';
import type { RecordedRequest, ScriptedResponse } from '../../../src/testing/index.js';
import { put, type ParityContext, type ParityScenario } from './run.js';

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
];

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
