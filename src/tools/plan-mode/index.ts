/**
 * EnterPlanMode / ExitPlanMode. The mode lives in the app state's permission context, where the engine reads it
 * (plan mode denies every call that is not read-only). Entering remembers the previous mode (`prePlanMode`);
 * leaving asks the person to approve the plan through `ui.askQuestion` and restores that mode. Both change the mode
 * in a `contextModifier`, so the switch happens where the executor applies context changes, between calls.
 */
import * as z from 'zod';
import { enterPlanMode, exitPlanMode } from '../../permissions/permission-context.js';
import { buildTool } from '../../tool/build-tool.js';
import { errorToolResult } from '../../tool/tool-result.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import '../shared/questions.js';
import { ENTER_PLAN_MODE_TOOL_NAME, enterPlanModePrompt, EXIT_PLAN_MODE_TOOL_NAME, exitPlanModePrompt } from './prompt.js';

export { ENTER_PLAN_MODE_TOOL_NAME, EXIT_PLAN_MODE_TOOL_NAME };

const modeOf = (context: ToolUseContext) => context.getAppState().toolPermissionContext.mode;

export const EnterPlanModeTool = buildTool({
  name: ENTER_PLAN_MODE_TOOL_NAME,
  searchHint: 'plan before editing read-only exploration',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => enterPlanModePrompt(),
  // It narrows what may run: nothing to ask about, and it must be callable from any mode.
  isReadOnly: () => true,
  checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
  async validateInput(_input, context) {
    if (context.agentDepth > 0) return { result: false, message: 'Sub-agents cannot switch to plan mode.', errorCode: 1 };
    if (modeOf(context) === 'plan') return { result: false, message: 'Already in plan mode.', errorCode: 2 };
    return { result: true };
  },
  async call(_input, context) {
    const previous = modeOf(context);
    return {
      data: { previousMode: previous },
      contextModifier: (ctx) => {
        ctx.setAppState((prev) => ({ ...prev, toolPermissionContext: enterPlanMode(prev.toolPermissionContext) }));
        return ctx;
      },
    };
  },
  mapToolResultToToolResultBlockParam: (_data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content:
      'Plan mode is on. Explore with read-only tools only and write nothing; when the plan is ready, present it with ExitPlanMode.',
  }),
  renderToolUseMessage: () => '',
  renderToolResultMessage: () => 'Plan mode on: read-only until the plan is approved',
});

export const exitPlanModeInputSchema = z.looseObject({
  plan: z.string().optional().describe('The plan, in Markdown'),
  allowedPrompts: z.array(z.unknown()).optional().describe('Deprecated; ignored'),
});

export interface ExitPlanModeOutput {
  plan: string;
  /** False: the person refused it; plan mode stays on and the result is an error for the model. */
  approved: boolean;
  /** The mode now in force (`plan` when refused). */
  restoredMode: string;
  /** What the person said when refusing. */
  feedback?: string;
}

export const ExitPlanModeTool = buildTool<typeof exitPlanModeInputSchema, ExitPlanModeOutput>({
  name: EXIT_PLAN_MODE_TOOL_NAME,
  searchHint: 'present plan for approval and start work',
  inputSchema: exitPlanModeInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => exitPlanModePrompt(),
  // Callable inside plan mode (which refuses anything not read-only); the approval below is the question.
  isReadOnly: () => true,
  checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
  async validateInput(_input, context) {
    if (modeOf(context) !== 'plan') return { result: false, message: 'Not in plan mode: there is no plan to present. Just go on with the work.', errorCode: 1 };
    return { result: true };
  },
  async call(input, context) {
    const plan = typeof input.plan === 'string' ? input.plan : '';
    const ask = context.ui?.askQuestion;
    if (!ask) {
      throw new Error('No one can approve the plan in this session (it runs headless), so plan mode stays on. Report the plan as your answer.');
    }
    const answer = await ask({ kind: 'plan-approval', message: plan, signal: context.abortController.signal });
    // A refusal is an answer, not a failure: an output (drawn as such), sent to the model as an error.
    if (answer.action !== 'accept') return { data: { plan, approved: false, restoredMode: modeOf(context), ...(answer.message ? { feedback: answer.message } : {}) } };
    const restored = exitPlanMode(context.getAppState().toolPermissionContext).mode;
    return {
      data: { plan, approved: true, restoredMode: restored },
      contextModifier: (ctx) => {
        ctx.setAppState((prev) => ({ ...prev, toolPermissionContext: exitPlanMode(prev.toolPermissionContext) }));
        return ctx;
      },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) =>
    data.approved
      ? {
          type: 'tool_result',
          tool_use_id: toolUseId,
          content: `The person approved the plan. Plan mode is off (mode: ${data.restoredMode}); start the work, following the plan.`,
        }
      : errorToolResult(
          toolUseId,
          `The person did not approve the plan; plan mode stays on.${data.feedback ? ` Their feedback: ${data.feedback}` : ''} Revise the plan and present it again.`,
        ),
  renderToolUseMessage: (input) => firstLine(typeof input.plan === 'string' ? input.plan : ''),
  renderToolResultMessage: (data) => (data.approved ? `Plan approved (mode: ${data.restoredMode})` : `Plan refused${data.feedback ? `: ${data.feedback}` : ''}; plan mode stays on`),
  loadViews: () => import('./render.js').then((m) => m.exitPlanModeViews),
});

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '')?.replace(/^#+\s*/, '').trim() ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
