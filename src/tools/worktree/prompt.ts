export const ENTER_WORKTREE_TOOL_NAME = 'EnterWorktree';
export const EXIT_WORKTREE_TOOL_NAME = 'ExitWorktree';

export function enterWorktreePrompt(): string {
  return [
    'Creates a git worktree — a separate checkout of this repository on a new branch — and moves the session into it,',
    'so risky or experimental work happens away from the main checkout. Use it when the person asks for a worktree or',
    'for isolated work. The worktree is made under .toolgate/worktrees/<name> on the branch worktree-<name>, from the',
    "current commit; from then on commands run there and it is the working directory (the main checkout is not).",
    '- name (optional): letters, digits, ".", "_", "-", "/" between parts, at most 64 characters; a random one if absent.',
    '- path (instead of name): enter a linked worktree of this repository that already exists (the person is asked).',
    'Leave with ExitWorktree. Not available to sub-agents.',
  ].join('\n');
}

export function exitWorktreePrompt(): string {
  return [
    'Leaves the worktree EnterWorktree moved this session into, and returns to the original working directory. It acts',
    'only on that worktree; called when none is active, it changes nothing. Call it when the person asks to leave.',
    '- action "keep": the worktree and its branch stay on disk (to come back to, or to merge later).',
    '- action "remove": the worktree and its branch are deleted. If it has uncommitted files or commits of its own,',
    '  this is refused unless discard_changes is true — say what would be lost and ask the person before passing it.',
  ].join('\n');
}
