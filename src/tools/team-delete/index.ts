/**
 * TeamDelete (the seeds' tool): ends the session's team — each live teammate is stopped through the task registry, as
 * TaskStop stops it — and forgets it. Lead only. Claude Code's refuses while members are active; toolgate stops them,
 * since the lead asked for the team to end and a teammate left waiting would hold its task open.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import type { ValidationResult } from '../../tool/tool.js';
import { getTaskRegistry } from '../shared/task-registry.js';
import { currentTeam, deleteTeam, isLead } from '../shared/team.js';
import { TEAM_DELETE_TOOL_NAME, teamDeletePrompt } from './prompt.js';

export const teamDeleteInputSchema = z.strictObject({});

export interface TeamDeleteOutput {
  readonly success: boolean;
  readonly message: string;
  readonly team_name: string;
  /** The teammates it stopped. */
  readonly stopped: readonly string[];
}

function validate(context: ToolUseContext): ValidationResult {
  if (!isLead(context)) return { result: false, message: 'Only the lead (the main conversation) ends the team.', errorCode: 1 };
  if (!currentTeam(context)) return { result: false, message: 'There is no team to delete in this session.', errorCode: 2 };
  return { result: true };
}

export const TeamDeleteTool = buildTool<typeof teamDeleteInputSchema, TeamDeleteOutput>({
  name: TEAM_DELETE_TOOL_NAME,
  searchHint: 'agent team end teammates delete',
  inputSchema: teamDeleteInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => teamDeletePrompt(),
  // It stops the session's own agents, nothing outside it.
  isReadOnly: () => true,
  toAutoClassifierInput: () => 'end the agent team',
  validateInput: async (_input, context) => validate(context),
  call: async (_input, context) => {
    const check = validate(context);
    if (!check.result) throw new Error(check.message);
    const team = currentTeam(context)!;
    deleteTeam(context);
    const live = [...team.members.values()].filter((m) => m.status !== 'ended');
    const registry = getTaskRegistry(context);
    await Promise.all(live.map((m) => registry.stop(m.agentId)));
    const names = live.map((m) => `"${m.name}"`).join(', ');
    return {
      data: { success: true, message: `Team "${team.name}" deleted${live.length > 0 ? `; stopped ${names}` : ''}.`, team_name: team.name, stopped: live.map((m) => m.name) },
    };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: data.message }),
  renderToolUseMessage: () => '',
  renderToolResultMessage: (data) => data.message,
});
