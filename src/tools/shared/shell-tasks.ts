/**
 * Starting a shell command as a background task the Bash tool's way — its permission check, sandbox, scrubbed
 * environment, process group, markers and output file — for a tool that is not Bash (Monitor). The Bash tool's folder
 * implements it (`tools/bash/background-shell.ts`); the runtime puts it on `services.shellTasks`, so no tool imports
 * another's folder and nothing of the launch is copied.
 */
import type { PermissionResult } from '../../tool/permission-types.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';

export interface ShellTaskRequest {
  readonly command: string;
  readonly description?: string;
  /** The task is ended (`lifetime`) this long after its start. */
  readonly lifetimeMs: number;
}

export type ShellTaskStart =
  | { readonly ok: true; readonly taskId: string; readonly outputFile: string; readonly sandboxed: boolean; readonly notes: string }
  | { readonly ok: false; readonly error: string };

export interface ShellTaskService {
  /**
   * Starts the command in the background: a task of `getTaskRegistry(context)` whose end-of-task message goes to
   * `context.services.notifications`.
   */
  start(request: ShellTaskRequest, context: ToolUseContext): Promise<ShellTaskStart>;
  /** The Bash tool's own check of this command (its sandbox auto-allow included), for a tool judged as Bash. */
  checkPermissions(command: string, context: ToolUseContext): Promise<PermissionResult>;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** Background shell commands started the Bash tool's way (Monitor). */
    readonly shellTasks?: ShellTaskService;
  }
}
