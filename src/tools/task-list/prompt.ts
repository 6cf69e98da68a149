/** What the model reads about the task list's tools. */
export const TASK_CREATE_TOOL_NAME = 'TaskCreate';
export const TASK_GET_TOOL_NAME = 'TaskGet';
export const TASK_UPDATE_TOOL_NAME = 'TaskUpdate';
export const TASK_LIST_TOOL_NAME = 'TaskList';

const SHARED = `The session has one task list, shared by the lead and its teammates (an agent team): use it to split work, claim a task (set yourself as its owner and its status to in_progress) and mark it completed when it is done.`;

export function taskCreatePrompt(): string {
  return `Adds a task to the session's task list (status pending) and returns its ID.\n\n${SHARED}\n\n- \`subject\`: a short title; \`description\`: what needs doing; \`activeForm\`: the present-continuous line shown while it is in progress.`;
}

export function taskGetPrompt(): string {
  return `Returns one task of the session's task list by its ID: subject, description, status, and the tasks it blocks and is blocked by (null when there is none).\n\n${SHARED}`;
}

export function taskUpdatePrompt(): string {
  return `Changes a task of the session's task list: subject, description, activeForm, status (pending, in_progress, completed, or deleted to remove it), owner, dependencies (addBlocks, addBlockedBy: task IDs) and metadata (a key set to null is removed).\n\n${SHARED}\n\n- Setting in_progress without an owner makes you the owner when you are a member of the team.`;
}

export function taskListPrompt(): string {
  return `Lists the session's task list: each task's ID, subject, status, owner, and the open tasks that still block it.\n\n${SHARED}`;
}
