/**
 * `toolgate/agent-sdk`'s options, each through the real Anthropic SDK against the scripted server: the environment
 * the session sees (and never `process.env`), settings sources, rules, the system prompt, thinking, budget, fallback
 * model, structured output, unknown and refused options, and the bypass opt-in.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentSdkOptionError, query } from 'toolgate/agent-sdk';
import { call, harness, resultOf, text, toolResults, type Harness } from './helpers/agent-sdk-session.js';
import { optionDisposition } from '../src/agent-sdk/session-options.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The names of the Agent SDK 0.3.328's `Options` (its published sdk.d.ts). */
const AGENT_SDK_OPTIONS = [
  'abortController', 'additionalDirectories', 'agent', 'agentProgressSummaries', 'agents',
  'allowDangerouslySkipPermissions', 'allowedTools', 'betas', 'canUseTool', 'continue', 'cwd', 'debug', 'debugFile',
  'disallowedTools', 'effort', 'enableFileCheckpointing', 'env', 'executable', 'executableArgs', 'extraArgs',
  'fallbackModel', 'forkSession', 'forwardSubagentText', 'hooks', 'includeHookEvents', 'includePartialMessages',
  'loadTimeoutMs', 'managedSettings', 'maxBudgetUsd', 'maxThinkingTokens', 'maxTurns', 'mcpServers',
  'mcpServersDelivery', 'model', 'onElicitation', 'onUserDialog', 'outputFormat', 'pathToClaudeCodeExecutable',
  'perTaskStopAffordance', 'permissionMode', 'permissionPromptToolName', 'permissionPrompts', 'persistSession',
  'planModeInstructions', 'pluginDelivery', 'plugins', 'projectConfigRoot', 'promptSuggestions', 'resume',
  'resumeDropsTurn', 'resumeSessionAt', 'sandbox', 'sessionId', 'sessionStore', 'sessionStoreFlush',
  'settingSources', 'settings', 'skills', 'spawnClaudeCodeProcess', 'stderr', 'strictMcpConfig',
  'supportedDialogKinds', 'systemPrompt', 'taskBudget', 'thinking', 'title', 'toolAliases', 'toolConfig', 'tools',
  'verbatimPrompts',
];

describe('options are checked when query() is called', () => {
  it('an unknown option is an error naming it (and the option meant)', () => {
    expect(() => query({ prompt: 'x', options: { maxTurn: 3 } as never })).toThrow(/options\.maxTurn is not an option of query\(\) \(did you mean "maxTurns"\?\)/);
    expect(() => query({ prompt: 'x', options: { maxTurn: 3 } as never })).toThrow(AgentSdkOptionError);
  });

  it('options for a child process are accepted and ignored; options toolgate cannot honour are refused with the reason', () => {
    expect(() => query({ prompt: 'x', options: { executable: 'node', pathToClaudeCodeExecutable: '/nowhere', executableArgs: ['--x'] } })).not.toThrow();
    expect(() => query({ prompt: 'x', options: { toolAliases: { Bash: 'mcp__box__bash' } } })).toThrow(/toolAliases is not supported.*built-in tool instead/);
    expect(() => query({ prompt: 'x', options: { plugins: [{ type: 'remote' as never, path: '/p' }] } })).toThrow(/plugins\[0\] must be/);
  });

  it("every option of the Agent SDK's Options is honoured, ignored or refused — none is unknown", () => {
    const unknown = AGENT_SDK_OPTIONS.filter((name) => optionDisposition(name) === undefined);
    expect(unknown).toEqual([]);
    expect(() => query({ prompt: 'x', options: { skills: 'all' } })).not.toThrow();
    expect(() => query({ prompt: 'x', options: { skills: ['one'] } as never })).toThrow(/skills/);
  });

  it('bypassPermissions needs allowDangerouslySkipPermissions (fail closed)', () => {
    expect(() => query({ prompt: 'x', options: { permissionMode: 'bypassPermissions' } })).toThrow(/allowDangerouslySkipPermissions/);
    expect(() => query({ prompt: 'x', options: { permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true } })).not.toThrow();
  });

  it('values of the wrong kind are errors', () => {
    expect(() => query({ prompt: 'x', options: { maxTurns: 0 } })).toThrow(/maxTurns must be a positive integer/);
    expect(() => query({ prompt: 'x', options: { sessionId: 'not-a-uuid' } })).toThrow(/sessionId must be a UUID/);
    expect(() => query({ prompt: 'x', options: { settingSources: ['everywhere' as never] } })).toThrow(/settingSources/);
  });
});

describe('the session environment', () => {
  it("is options.env: the model client's URL and key, the tools' processes, and process.env stays untouched", async () => {
    h = await harness([call('Bash', { command: 'echo "[$SESSION_ONLY][$PROCESS_ONLY]"', description: 'env' }), text('done')]);
    process.env.PROCESS_ONLY = 'from-process';
    const before = { ...process.env };
    try {
      const { messages } = await h.run('env', { allowedTools: ['Bash'], env: { SESSION_ONLY: 'from-session' } });
      expect(toolResults(messages)[0]).toContain('[from-session][]');
      expect(h.server.messageRequests[0]!.headers.authorization).toBe('Bearer sk-test-key');
      expect(process.env).toEqual(before);
    } finally {
      delete process.env.PROCESS_ONLY;
    }
  });

  it('without an API key the session refuses to start, saying where to put one', async () => {
    h = await harness([text('never')]);
    const { error } = await h.run('x', { env: { ANTHROPIC_API_KEY: '' } });
    expect(String(error)).toMatch(/no API key: set ANTHROPIC_API_KEY/);
    expect(h.server.messageRequests).toHaveLength(0);
  });
});

describe('settings sources', () => {
  const projectDeny = (dir: string) => {
    mkdirSync(path.join(dir, '.claude'));
    writeFileSync(path.join(dir, '.claude', 'settings.json'), JSON.stringify({ permissions: { deny: ['Read'] } }));
    writeFileSync(path.join(dir, 'a.txt'), 'x\n');
  };

  it("default (as the Agent SDK 0.3.328): user, project and local settings are read — a project's deny rule holds", async () => {
    h = await harness([call('Read', { file_path: 'a.txt' }), text('k')]);
    projectDeny(h.dir);
    const { messages } = await h.run('read', { allowedTools: ['Read'], settingSources: undefined });
    expect(toolResults(messages)[0]).toMatch(/No such tool available: Read|not available/);
  });

  it('settingSources: [] reads no settings file', async () => {
    h = await harness([call('Read', { file_path: path.join('a.txt') }), text('k')]);
    projectDeny(h.dir);
    const { messages } = await h.run('read', { allowedTools: ['Read'], settingSources: [] });
    expect(toolResults(messages)[0]).toContain('1\tx');
  });
});

describe('rules, tools and the system prompt', () => {
  it('tools limits the built-ins offered; allowedTools and disallowedTools are rules', async () => {
    h = await harness([text('ok')]);
    const { messages } = await h.run('x', { tools: ['Read', 'Bash'], disallowedTools: ['Bash'] });
    const init = messages[0] as Extract<(typeof messages)[number], { subtype: 'init' }>;
    expect(init.tools).toEqual(['Read']);
    expect(h.server.messageRequests[0]!.body.tools.map((t: { name: string }) => t.name)).toEqual(['Read']);
  });

  it('a string system prompt replaces toolgate\'s; the preset is toolgate\'s prompt with append', async () => {
    h = await harness([text('a'), text('b')]);
    await h.run('x', { systemPrompt: 'You are a test.' });
    await h.run('x', { systemPrompt: { type: 'preset', preset: 'claude_code', append: 'APPENDED LINE' } });
    const systems = h.server.messageRequests.map((r) => r.body.system.map((b: { text: string }) => b.text).join('\n'));
    expect(systems[0]).toBe('You are a test.');
    expect(systems[1]).toContain('# Environment');
    expect(systems[1]).toContain('APPENDED LINE');
  });

  it('thinking and maxThinkingTokens become the request\'s thinking parameter', async () => {
    h = await harness([text('a'), text('b')]);
    await h.run('x', { maxThinkingTokens: 2048 });
    await h.run('x', { thinking: { type: 'disabled' } });
    expect(h.server.messageRequests[0]!.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(h.server.messageRequests[1]!.body.thinking).toBeUndefined();
  });
});

describe('limits', () => {
  it('maxBudgetUsd ends the turn with error_max_budget_usd once the cost reaches it; a call not yet started does not run', async () => {
    const spend = (command: string) => ({ ...call('Bash', { command, description: command }), usage: { input_tokens: 100_000, output_tokens: 1_000 } });
    h = await harness([spend('touch first'), spend('touch second'), text('never')]);
    const { messages, error } = await h.run('spend', { maxBudgetUsd: 0.5, allowedTools: ['Bash'] });
    const result = resultOf(messages);
    expect(result.subtype).toBe('error_max_budget_usd');
    expect(result.total_cost_usd).toBeGreaterThanOrEqual(0.5);
    expect(existsSync(path.join(h.dir, 'first'))).toBe(true);
    expect(existsSync(path.join(h.dir, 'second'))).toBe(false);
    expect(String(error)).toContain('Reached maximum budget ($0.5)');
  });

  it('fallbackModel: when the model stays overloaded, the next request goes to the fallback', async () => {
    const overloaded = { ...text('never'), errors: Array.from({ length: 50 }, () => ({ status: 529 })) };
    h = await harness([(request) => (request.body.model === 'claude-opus-4-6' ? overloaded : text('from the fallback'))]);
    const { messages } = await h.run('x', { model: 'claude-opus-4-6', fallbackModel: 'claude-sonnet-4-6' });
    expect(resultOf(messages)).toMatchObject({ subtype: 'success', result: 'from the fallback' });
    const models = h.server.messageRequests.map((r) => r.body.model);
    expect(models).toEqual(['claude-opus-4-6', 'claude-opus-4-6', 'claude-opus-4-6', 'claude-sonnet-4-6']);
    expect(Object.keys(resultOf(messages).modelUsage)).toEqual(['claude-sonnet-4-6']);
  }, 60_000);
});

describe('structured output', () => {
  const schema = { type: 'object', properties: { answer: { type: 'number' } }, required: ['answer'] };

  it('the model answers through StructuredOutput; a wrong answer is refused with what is wrong, a right one ends the turn', async () => {
    h = await harness([call('StructuredOutput', { answer: 'six' }), call('StructuredOutput', { answer: 42 })]);
    const { messages } = await h.run('6*7?', { outputFormat: { type: 'json_schema', schema } });
    const tool = h.server.messageRequests[0]!.body.tools.find((t: { name: string }) => t.name === 'StructuredOutput');
    expect(tool.input_schema).toMatchObject(schema);
    expect(toolResults(messages)[0]).toMatch(/does not match the required schema: \/answer/);
    expect(resultOf(messages)).toMatchObject({ subtype: 'success', structured_output: { answer: 42 }, result: '{"answer":42}', stop_reason: 'tool_use' });
    expect(h.server.messageRequests).toHaveLength(2);
  });

  it('a schema that cannot be used is a clear error', async () => {
    h = await harness([text('never')]);
    const { error } = await h.run('x', { outputFormat: { type: 'json_schema', schema: { type: 'array' } } });
    expect(String(error)).toMatch(/outputFormat\.schema must describe an object/);
  });
});

describe('secrets', () => {
  it("a tool's typed output (tool_use_result) is redacted like its result", async () => {
    h = await harness([call('Read', { file_path: 'creds.txt' }), text('ok')]);
    writeFileSync(path.join(h.dir, 'creds.txt'), 'token=s3cr3t-value-0042\n');
    const { messages } = await h.run('read', { allowedTools: ['Read'], env: { SERVICE_API_TOKEN: 's3cr3t-value-0042' } });
    const user = messages.find((m) => m.type === 'user' && m.tool_use_result !== undefined)!;
    expect(JSON.stringify(user)).not.toContain('s3cr3t-value-0042');
    expect(JSON.stringify((user as { tool_use_result: unknown }).tool_use_result)).toContain('[REDACTED:SERVICE_API_TOKEN]');
    expect(readFileSync(path.join(h.dir, 'creds.txt'), 'utf8')).toContain('s3cr3t');
  });
});
