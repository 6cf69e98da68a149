export const ENTER_PLAN_MODE_TOOL_NAME = 'EnterPlanMode';
export const EXIT_PLAN_MODE_TOOL_NAME = 'ExitPlanMode';

export function enterPlanModePrompt(): string {
  return [
    'Switches to plan mode: from now on only read-only tools run (reading, searching, read-only commands); every',
    'edit, write and state-changing command is refused. Use it before a change that needs exploring and a plan the',
    'person should see first. When the plan is ready, present it with ExitPlanMode.',
  ].join('\n');
}

export function exitPlanModePrompt(): string {
  return [
    'Presents the plan for approval and, when the person approves it, leaves plan mode (back to the mode before it)',
    'so the work can start. Put the whole plan in `plan` (Markdown: the steps, the files, how it will be checked).',
    'Only call it in plan mode, and only when the plan is complete; if it is rejected, revise and present again.',
  ].join('\n');
}
