/**
 * EnterWorktree / ExitWorktree: a git worktree for risky work. Entering makes one in the project's own repository (the
 * one git finds from the working directory, not from wherever the shell went), or — after asking the person — takes
 * an existing linked worktree of that repository, and moves the session into it through a `contextModifier` (the
 * seeds' example of a modifier), so every call after it starts there: Bash's directory, relative paths and the
 * permission context's working directory (the worktree becomes the working directory; the main checkout is outside it
 * until the session leaves). Leaving restores both and keeps or removes the worktree. The session's worktree lives in
 * the agent's `sessionState`. Only the main thread may switch: a sub-agent shares the session's directory with its
 * parent.
 */
import path from 'node:path';
import * as z from 'zod';
import { updatePermissionContext } from '../../permissions/permission-context.js';
import { buildTool } from '../../tool/build-tool.js';
import type { ValidationResult } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { workingDirectories } from '../../permissions/paths.js';
import { createWorktree, findRepository, GitError, isLinkedWorktreeOf, isValidWorktreeName, listWorktrees, MAX_WORKTREE_NAME, physical, removeWorktree, worktreeChanges, type OwnRepository } from './git-worktree.js';
import { ENTER_WORKTREE_TOOL_NAME, enterWorktreePrompt, EXIT_WORKTREE_TOOL_NAME, exitWorktreePrompt } from './prompt.js';
import { randomUUID } from '../../tool/crypto.js';

export { ENTER_WORKTREE_TOOL_NAME, EXIT_WORKTREE_TOOL_NAME };

/** The worktree a session is in, and where it came from. */
export interface WorktreeSession {
  readonly path: string;
  /** The branch EnterWorktree made (absent: an existing worktree entered by path). */
  readonly branch?: string;
  /** The commit it was made from: its own commits are those after it. */
  readonly baseCommit?: string;
  /** EnterWorktree made it: only then may ExitWorktree remove it. */
  readonly created: boolean;
  /** The project's own repository, as git named it when the session entered. */
  readonly repository: OwnRepository;
  /** The shell's directory and the permission context's working directory before entering. */
  readonly originalCwd: string;
  readonly originalWorkingDirectory: string;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolSessionState {
    /** The worktree EnterWorktree moved this agent into (absent: none). */
    readonly worktree?: WorktreeSession;
  }
}

const activeWorktree = (context: ToolUseContext) => context.sessionState?.worktree;

/** Moves the session's directory and working directory; the calls after it see the change. */
function moveTo(cwd: string, workingDirectory: string, worktree: WorktreeSession | undefined): (ctx: ToolUseContext) => ToolUseContext {
  return (ctx) => {
    ctx.setAppState((prev) => ({ ...prev, cwd, toolPermissionContext: updatePermissionContext(prev.toolPermissionContext, { cwd: workingDirectory }) }));
    const { worktree: _left, ...rest } = ctx.sessionState ?? {};
    return { ...ctx, sessionState: worktree ? { ...rest, worktree } : rest };
  };
}

function mainThreadOnly(context: ToolUseContext): ValidationResult {
  if (context.agentDepth > 0) {
    return { result: false, message: 'Sub-agents cannot switch worktrees: the session’s directory is their parent’s too.', errorCode: 1 };
  }
  return { result: true };
}

export const enterWorktreeInputSchema = z.strictObject({
  name: z.string().optional().describe(`A name for the new worktree (letters, digits, ".", "_", "-", "/" between parts; at most ${MAX_WORKTREE_NAME} characters)`),
  path: z.string().optional().describe('Enter this existing worktree of the repository instead of making one'),
});

export interface EnterWorktreeOutput {
  readonly worktreePath: string;
  readonly branch?: string;
  readonly created: boolean;
  readonly originalCwd: string;
}

export const EnterWorktreeTool = buildTool<typeof enterWorktreeInputSchema, EnterWorktreeOutput>({
  name: ENTER_WORKTREE_TOOL_NAME,
  searchHint: 'git worktree isolated branch risky experimental work',
  inputSchema: enterWorktreeInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => enterWorktreePrompt(),
  // Entering an existing folder moves the working directory there: a person says so, whatever the rules allow.
  async checkPermissions(input) {
    if (input.path === undefined) return { behavior: 'allow', updatedInput: input };
    const reason = `EnterWorktree would make ${input.path} the working directory`;
    return { behavior: 'ask', message: reason, decisionReason: { layer: 'toolCheck', reason } };
  },
  async validateInput(input, context) {
    const thread = mainThreadOnly(context);
    if (!thread.result) return thread;
    const active = activeWorktree(context);
    if (active) return { result: false, message: `Already in the worktree ${active.path}; leave it with ExitWorktree first.`, errorCode: 2 };
    if (input.name !== undefined && input.path !== undefined) return { result: false, message: 'Give either name (a new worktree) or path (an existing one), not both.', errorCode: 3 };
    if (input.name !== undefined && !isValidWorktreeName(input.name)) {
      return { result: false, message: `Invalid worktree name "${input.name}": use letters, digits, ".", "_", "-" and "/" between parts, at most ${MAX_WORKTREE_NAME} characters.`, errorCode: 4 };
    }
    return { result: true };
  },
  async call(input, context) {
    const signal = context.abortController.signal;
    const state = context.getAppState();
    // The project's own repository: the one git finds from the working directory, not from wherever the shell went.
    const permissions = state.toolPermissionContext;
    const repository = await findRepository(permissions.cwd, signal);
    if (repository === undefined) throw new Error(`${permissions.cwd} is not inside a git repository: there is nothing to make a worktree of.`);
    let session: WorktreeSession;
    const origin = { repository, originalCwd: state.cwd, originalWorkingDirectory: permissions.cwd };
    if (input.path !== undefined) {
      const wanted = physical(path.resolve(permissions.cwd, input.path));
      if (!(await isLinkedWorktreeOf(repository, wanted, signal))) {
        const worktrees = await listWorktrees(repository, signal).catch(() => []);
        throw new Error(`${input.path} is not another worktree of the repository at ${repository.root}. Its worktrees: ${worktrees.join(', ')}`);
      }
      session = { ...origin, path: wanted, created: false };
    } else {
      try {
        const made = await createWorktree(repository, input.name ?? `wt-${randomUUID().slice(0, 8)}`, workingDirectories(permissions), signal);
        session = { ...origin, path: made.path, branch: made.branch, baseCommit: made.baseCommit, created: true };
      } catch (error) {
        throw error instanceof GitError ? new Error(`Could not create the worktree: ${error.message}`) : error;
      }
    }
    return {
      data: { worktreePath: session.path, ...(session.branch !== undefined ? { branch: session.branch } : {}), created: session.created, originalCwd: state.cwd },
      contextModifier: moveTo(session.path, session.path, session),
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: [
      data.created ? `Created a worktree at ${data.worktreePath} on the new branch ${data.branch} and moved the session into it.` : `Moved the session into the worktree ${data.worktreePath}.`,
      `Commands now run there and it is the working directory; the original checkout (${data.originalCwd}) is outside it until you leave with ExitWorktree.`,
    ].join(' '),
  }),
  renderToolUseMessage: (input) => input.path ?? input.name ?? '',
  renderToolResultMessage: (data) => `In ${data.worktreePath}${data.branch ? ` (${data.branch})` : ''}`,
});

export const exitWorktreeInputSchema = z.strictObject({
  action: z.enum(['keep', 'remove']).describe('"keep" leaves the worktree and its branch on disk; "remove" deletes both'),
  discard_changes: z.boolean().optional().describe('With "remove": delete even uncommitted files and commits of its own (ask first)'),
});

export interface ExitWorktreeOutput {
  /** False: no worktree session was active; nothing changed. */
  readonly left: boolean;
  readonly action: 'keep' | 'remove';
  readonly worktreePath?: string;
  readonly branch?: string;
  readonly returnedTo?: string;
  /** What `remove` with `discard_changes` threw away. */
  readonly discarded?: { readonly uncommittedFiles: number; readonly newCommits: number };
}

export const ExitWorktreeTool = buildTool<typeof exitWorktreeInputSchema, ExitWorktreeOutput>({
  name: EXIT_WORKTREE_TOOL_NAME,
  searchHint: 'leave git worktree keep or remove it',
  inputSchema: exitWorktreeInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => exitWorktreePrompt(),
  // Leaving and keeping changes where calls run, nothing on disk; removing deletes a checkout and a branch.
  isReadOnly: (input) => input.action === 'keep',
  isDestructive: (input) => input.action === 'remove',
  validateInput: async (_input, context) => mainThreadOnly(context),
  async call(input, context) {
    const session = activeWorktree(context);
    if (!session) return { data: { left: false, action: input.action } };
    const signal = context.abortController.signal;
    let discarded: ExitWorktreeOutput['discarded'];
    if (input.action === 'remove') {
      if (!session.created || session.branch === undefined || session.baseCommit === undefined) {
        throw new Error(`The worktree ${session.path} was not made by EnterWorktree in this session, so it is not removed: leave it with action "keep".`);
      }
      const changes = await worktreeChanges(session.path, session.baseCommit, signal);
      const lost = changes.uncommittedFiles > 0 || changes.newCommits > 0;
      if (lost && input.discard_changes !== true) {
        throw new Error(
          `The worktree ${session.path} has ${changes.uncommittedFiles} uncommitted file(s) and ${changes.newCommits} commit(s) on ${session.branch} that the original checkout does not have; ` +
            'removing it would lose them. Leave it with action "keep", or — once the person agrees — remove it with discard_changes: true.',
        );
      }
      await removeWorktree(session.repository, session.path, session.branch, signal);
      if (lost) discarded = changes;
    }
    return {
      data: {
        left: true,
        action: input.action,
        worktreePath: session.path,
        ...(session.branch !== undefined ? { branch: session.branch } : {}),
        returnedTo: session.originalCwd,
        ...(discarded ? { discarded } : {}),
      },
      contextModifier: moveTo(session.originalCwd, session.originalWorkingDirectory, undefined),
    };
  },
  mapToolResultToToolResultBlockParam(data, toolUseId) {
    let text: string;
    if (!data.left) text = 'No worktree session is active: nothing was changed.';
    else if (data.action === 'keep') text = `Left the worktree; it stays at ${data.worktreePath}${data.branch ? ` on the branch ${data.branch}` : ''}. Back in ${data.returnedTo}.`;
    else {
      const lost = data.discarded ? ` (discarded ${data.discarded.uncommittedFiles} uncommitted file(s) and ${data.discarded.newCommits} commit(s))` : '';
      text = `Removed the worktree ${data.worktreePath} and its branch ${data.branch}${lost}. Back in ${data.returnedTo}.`;
    }
    return { type: 'tool_result', tool_use_id: toolUseId, content: text };
  },
  renderToolUseMessage: (input) => `${input.action ?? ''}${input.discard_changes ? ', discarding changes' : ''}`,
  renderToolResultMessage: (data) => (!data.left ? 'No worktree to leave' : data.action === 'keep' ? `Kept ${data.worktreePath}` : `Removed ${data.worktreePath}`),
});
