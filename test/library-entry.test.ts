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
    ]) {
      expect(toolgate, name).toHaveProperty(name);
    }
  });
});
