/**
 * Redaction at the result boundary: a known secret reaches no tool_result, whichever way it travels — a tool's text,
 * an MCP tool's result, a thrown error, a persisted oversized result, a PostToolUse hook's replacement output, or a
 * Bash command printing a file.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { runToolUse } from '../src/execution/pipeline.js';
import { createHookRunner } from '../src/hooks/hook-runner.js';
import { parseHooksSettings } from '../src/hooks/parse-hooks-settings.js';
import { buildTool } from '../src/tool/build-tool.js';
import type { AnyTool } from '../src/tool/tool.js';
import { BashTool } from '../src/tools/bash/index.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse, type TempSession } from './helpers/execution.js';

const SECRET = 'tg-test-secret-6f3a9c1d2e';
let session: TempSession;
beforeEach(() => {
  session = tempSession('toolgate-redact-');
  process.env.TOOLGATE_REDACTION_TEST_TOKEN = SECRET;
});
afterEach(() => {
  delete process.env.TOOLGATE_REDACTION_TEST_TOKEN;
  session.cleanup();
});

const schema = z.strictObject({ mode: z.enum(['text', 'throw', 'big']) });

function leakyTool(extra: Partial<Parameters<typeof buildTool>[0]> = {}): AnyTool {
  return buildTool<typeof schema, string>({
    name: 'Leaky',
    inputSchema: schema,
    maxResultSizeChars: 1_000,
    prompt: async () => '',
    call: async (input) => {
      if (input.mode === 'throw') throw new Error(`connection failed with key ${SECRET}`);
      if (input.mode === 'big') return { data: `${'x'.repeat(5_000)}\nkey=${SECRET}\n` };
      return { data: `env: TOOLGATE_REDACTION_TEST_TOKEN=${SECRET}` };
    },
    ...(extra as object),
  });
}

async function run(tool: AnyTool, input: unknown, extra: Parameters<typeof makeContext>[2] = {}) {
  const context = makeContext([tool], session.dir, extra);
  return runToolUse(toolUse(tool.name, input, 'toolu_redact'), assistantMessage, allowAll, context);
}

describe('no known secret reaches a tool_result', () => {
  it('in a tool’s text, marked with the variable’s name', async () => {
    const outcome = await run(leakyTool(), { mode: 'text' });
    expect(textOf(outcome.result.content)).toBe('env: TOOLGATE_REDACTION_TEST_TOKEN=[REDACTED:TOOLGATE_REDACTION_TEST_TOKEN]');
  });

  it('in an MCP tool’s result and in an error message', async () => {
    const mcp = await run(leakyTool({ name: 'mcp__srv__leak', isMcp: true } as never), { mode: 'text' });
    expect(textOf(mcp.result.content)).not.toContain(SECRET);
    const failed = await run(leakyTool(), { mode: 'throw' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed.result.content)).toContain('[REDACTED:TOOLGATE_REDACTION_TEST_TOKEN]');
    expect(textOf(failed.result.content)).not.toContain(SECRET);
  });

  it('in a persisted oversized result: the preview and the file on disk', async () => {
    const outcome = await run(leakyTool(), { mode: 'big' });
    expect(outcome.persistedPath).toBeDefined();
    expect(textOf(outcome.result.content)).not.toContain(SECRET);
    const saved = readFileSync(outcome.persistedPath!, 'utf8');
    expect(saved).toContain('key=[REDACTED:TOOLGATE_REDACTION_TEST_TOKEN]');
    expect(saved).not.toContain(SECRET);
  });

  it('in output a PostToolUse hook put in place', async () => {
    const file = path.join(session.dir, 'post.sh');
    writeFileSync(file, `#!/usr/bin/env bash\necho '{"hookSpecificOutput":{"hookEventName":"PostToolUse","updatedToolOutput":"hook says ${SECRET}"}}'\n`);
    chmodSync(file, 0o755);
    const parsed = parseHooksSettings([{ source: 'projectSettings', file: path.join(session.dir, 'settings.json'), hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: file }] }] } }]);
    const hooks = createHookRunner({ config: parsed.config, sessionDir: session.dir });
    const outcome = await run(leakyTool(), { mode: 'text' }, { services: { hooks } });
    expect(textOf(outcome.result.content)).toBe('hook says [REDACTED:TOOLGATE_REDACTION_TEST_TOKEN]');
  });

  it('in a Bash command printing a file, and for configured secrets; and not at all when turned off', async () => {
    writeFileSync(path.join(session.dir, 'leak.txt'), `${SECRET}\nconfigured-secret-12345\n`);
    const settings = { redaction: { secrets: { MY_SECRET: 'configured-secret-12345' } } };
    const bash = await run(BashTool, { command: `cat ${path.join(session.dir, 'leak.txt')}` }, { settings });
    expect(textOf(bash.result.content)).toBe('[REDACTED:TOOLGATE_REDACTION_TEST_TOKEN]\n[REDACTED:MY_SECRET]');
    const off = await run(BashTool, { command: `cat ${path.join(session.dir, 'leak.txt')}` }, { settings: { redaction: { enabled: false } } });
    expect(textOf(off.result.content)).toContain(SECRET);
  });
});
