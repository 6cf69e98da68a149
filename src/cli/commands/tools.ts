/** `toolgate tools [--json]`: the pool as the model sees it — names, deferred or not, input schemas. */
import type { Command } from 'commander';
import { getToolInputJSONSchema, isDeferredTool, toolsToAPI } from '../../tool/api-format.js';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import { assembleToolPool } from '../../registry/tool-pool.js';
import { resolveModel } from '../../tool/models.js';

export function registerToolsCommand(program: Command): void {
  program
    .command('tools')
    .description('print the tool pool as the model sees it: name, deferred or not, input schema')
    .option('--json', 'print the API tool definitions as JSON')
    .option('--cwd <dir>', 'working directory for the permission context', process.cwd())
    .option('--model <model>', 'model the definitions are built for (an alias or an id; default: the session default)')
    .action(async (opts: { json?: boolean; cwd: string; model?: string }) => {
      const permissionContext = getEmptyToolPermissionContext(opts.cwd);
      const tools = await assembleToolPool(permissionContext, []);
      if (opts.json) {
        const defs = await toolsToAPI(tools, { getToolPermissionContext: () => permissionContext, model: resolveModel(opts.model) });
        process.stdout.write(`${JSON.stringify(defs, null, 2)}\n`);
        return;
      }
      const lines = [`${tools.length} tool${tools.length === 1 ? '' : 's'} in the pool`];
      for (const tool of tools) {
        const deferred = isDeferredTool(tool, tools) ? ' (deferred)' : '';
        lines.push('', `${tool.name}${deferred}`, `  input: ${JSON.stringify(getToolInputJSONSchema(tool))}`);
      }
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
