// The package entries as a program sees them: the README's example is a file that runs (test/examples.test.ts), each
// layer's public entry point is in the root entry, the building blocks are in `toolgate/internals` and nowhere else.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as toolgate from '../src/index.js';
import * as internals from '../src/internals.js';
import { repoRoot } from './helpers/cli.js';
import { contextOf } from '../src/agent/runtime-context.js';

describe('the library entry', () => {
  it("the README's short example is examples/short.ts, word for word (so it type-checks and runs)", () => {
    const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## A short example'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(path.join(repoRoot, 'examples', 'short.ts'), 'utf8'));
    const imported = /import \{([^}]*)\} from 'toolgate';/.exec(block!)?.[1]?.split(',').map((s) => s.trim());
    for (const name of imported ?? []) expect(toolgate, name).toHaveProperty(name);
  });

  it("exposes each layer's public entry point", () => {
    for (const name of [
      'buildTool',
      'resolvePermission',
      'createPermissionContext',
      'explainDecision',
      'loadSettings',
      'createToolRuntime',
      'query',
      'loadMcpConfig',
      'McpClientManager',
      'serveStdio',
      'createDurableToolCallBackend',
      'createRestateToolEngine',
      'killAllShellProcessesSync',
      'startInteractiveSession',
    ]) {
      expect(toolgate, name).toHaveProperty(name);
    }
  });

  it('keeps the building blocks in toolgate/internals, and the rest inside', () => {
    for (const name of ['StreamingToolExecutor', 'runToolUse', 'createCanUseTool', 'hasPermissionsToUseTool', 'analyzeBashCommand', 'createHookRunner', 'assembleToolPool', 'toolsToAPI', 'BashTool']) {
      expect(internals, name).toHaveProperty(name);
      expect(toolgate, name).not.toHaveProperty(name);
    }
    // Internal helpers, the loop's parts and what no program called (runTools) are in neither.
    for (const name of ['OutcomeBuilder', 'HOSTILE_INPUT_KEYS', 'segmentToRegex', 'linkToolAbortController', 'ToolRun', 'runTools', 'checkPermissionsAndCallTool', 'modelStep', 'startToolStep', 'Session']) {
      expect(toolgate, name).not.toHaveProperty(name);
      expect(internals, name).not.toHaveProperty(name);
    }
  });

  it('decides and explains a permission from the entry alone, nothing run', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-entry-'));
    const runtime = await toolgate.createToolRuntime({ cwd: dir, sessionDir: path.join(dir, 'session'), settings: { sources: [] } });
    try {
      const ctx = toolgate.createPermissionContext({ cwd: dir, rules: toolgate.parseRules(['Bash(npm test)'], 'allow', 'session') });
      const bash = runtime.findTool('Bash')!;
      const allowed = await toolgate.resolvePermission(bash, { command: 'npm test' }, ctx);
      expect(allowed.behavior).toBe('allow');
      expect(toolgate.explainDecision(allowed)).toContain('Bash(npm test)');
      const asked = await toolgate.resolvePermission(bash, { command: 'npm test && rm -rf build' }, ctx);
      expect(asked.behavior).toBe('ask');
    } finally {
      await runtime.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs a tool call through the runtime with typed settings, from the entry alone', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
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
      expect(contextOf(runtime).options.settings.bash?.defaultTimeoutMs).toBe(5_000);
      const { results } = await runtime.run([{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'printenv GREETING' } }]);
      expect(toolgate.toolResultText(results[0]!).trim()).toBe('hello');
    } finally {
      await runtime.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
