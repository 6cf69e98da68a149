/**
 * The Bash tool's launch offered to other tools (`services.shellTasks`, tools/shared/shell-tasks.ts): a command started
 * exactly as `run_in_background: true` starts it, and the Bash tool's own permission check for a command.
 */
import { loadBashParser, needsBashParser } from '../../permissions/bash/index.js';
import type { ShellTaskService } from '../shared/shell-tasks.js';
import { BashTool, validateBashInput } from './index.js';
import { runBash } from './run-bash.js';

export const bashShellTasks: ShellTaskService = {
  async start(request, context) {
    const input = { command: request.command, run_in_background: true, timeout: request.lifetimeMs, ...(request.description !== undefined ? { description: request.description } : {}) };
    // Bash's own checks of a background command (background tasks switched off, the lifetime cap): runBash does not
    // make them, its tool's validateInput does, and this launch has none of its own.
    const valid = validateBashInput(input, context);
    if (!valid.result) return { ok: false, error: valid.message };
    if (needsBashParser(request.command)) await loadBashParser();
    const { data } = await runBash(input, context, '');
    if (data.backgroundTaskId === undefined || data.outputFile === undefined) return { ok: false, error: data.stderr || 'the command did not start' };
    return { ok: true, taskId: data.backgroundTaskId, outputFile: data.outputFile, sandboxed: data.sandboxed === true, notes: data.stderr };
  },
  checkPermissions: (command, context) => BashTool.checkPermissions({ command }, context),
};
