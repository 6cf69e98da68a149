/**
 * The Bash tool's launch offered to other tools (`services.shellTasks`, tools/shared/shell-tasks.ts): a command started
 * exactly as `run_in_background: true` starts it, and the Bash tool's own permission check for a command.
 */
import { loadBashParser, needsBashParser } from '../../permissions/bash/index.js';
import type { ShellTaskService } from '../shared/shell-tasks.js';
import { BashTool } from './index.js';
import { runBash } from './run-bash.js';

export const bashShellTasks: ShellTaskService = {
  async start(request, context) {
    if (needsBashParser(request.command)) await loadBashParser();
    const { data } = await runBash(
      { command: request.command, run_in_background: true, timeout: request.lifetimeMs, ...(request.description !== undefined ? { description: request.description } : {}) },
      context,
      '',
    );
    if (data.backgroundTaskId === undefined || data.outputFile === undefined) return { ok: false, error: data.stderr || 'the command did not start' };
    return { ok: true, taskId: data.backgroundTaskId, outputFile: data.outputFile, sandboxed: data.sandboxed === true, notes: data.stderr };
  },
  checkPermissions: (command, context) => BashTool.checkPermissions({ command }, context),
};
