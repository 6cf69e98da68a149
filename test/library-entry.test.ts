// The README's library example, run against the package entry, so the README cannot drift from the API.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import * as toolgate from '../src/index.js';

describe('the library entry', () => {
  it('runs the README example', async () => {
    const { buildTool, toolToAPI, assembleToolPool, getEmptyToolPermissionContext } = toolgate;
    const Echo = buildTool({
      name: 'Echo',
      inputSchema: z.object({ text: z.string().describe('What to say back') }),
      maxResultSizeChars: 10_000,
      prompt: async () => 'Repeats the text it is given.',
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      call: async ({ text }) => ({ data: text }),
    });
    const permissionContext = getEmptyToolPermissionContext(process.cwd());
    const tools = await assembleToolPool(permissionContext, [Echo]);
    const definition = await toolToAPI(Echo, { tools, getToolPermissionContext: () => permissionContext });
    expect(definition).toMatchObject({ name: 'Echo', description: 'Repeats the text it is given.', input_schema: { type: 'object' } });
    expect(tools.map((t) => t.name)).toContain('Read');
  });

  it('exposes every layer', () => {
    for (const name of [
      'buildTool',
      'createToolUseContext',
      'hasPermissionsToUseTool',
      'createCanUseTool',
      'checkBashPermission',
      'isReadOnlyCommand',
      'createHookRunner',
      'StreamingToolExecutor',
      'runTools',
      'assembleToolPool',
      'findToolByName',
      'loadSettings',
      'createDurableToolCallBackend',
      'createRestateToolEngine',
      'query',
      'createToolRuntime',
      'BashTool',
      'ReadTool',
      'createTaskRegistry',
      'TaskRegistry',
      'toStrictSchema',
    ]) {
      expect(toolgate, name).toHaveProperty(name);
    }
  });

  it('is a curated list: internal helpers stay inside', () => {
    for (const name of ['OutcomeBuilder', 'HOSTILE_INPUT_KEYS', 'segmentToRegex', 'linkToolAbortController', 'ToolRun']) {
      expect(toolgate, name).not.toHaveProperty(name);
    }
    expect(Object.keys(toolgate).length).toBeLessThan(200);
  });

  it('runs a tool call through the runtime with typed settings, from the entry alone', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-entry-'));
    // Typed from outside the package: the built-in tools' settings are part of ToolSettings.
    const settings: toolgate.ToolSettings = { bash: { defaultTimeoutMs: 5_000 }, sandbox: { enabled: false }, bashOutputMaxChars: 8_000 };
    const runtime = await toolgate.createToolRuntime({
      cwd: dir,
      sessionDir: path.join(dir, 'session'),
      settings: { sources: [], object: { toolgate: settings, env: { GREETING: 'hello' } } },
      rules: { allow: ['Bash(printenv:*)'] },
    });
    try {
      expect(runtime.context.options.settings.bash?.defaultTimeoutMs).toBe(5_000);
      const { results } = await runtime.run([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'printenv GREETING' } }]);
      expect(toolgate.toolResultText(results[0]!).trim()).toBe('hello');
    } finally {
      await runtime.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
