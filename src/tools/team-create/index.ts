/**
 * TeamCreate (the seeds' tool; Claude Code 2.1.328 keeps one implicit team per session and no longer offers it): names
 * the session's team, with the main thread as its lead. Only the lead may call it (it is not `asyncSafe`, and a
 * sub-agent is refused). It changes nothing outside the session: read-only, no prompt.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import type { ValidationResult } from '../../tool/tool.js';
import { createTeam, currentTeam, isLead, TEAM_LEAD } from '../shared/team.js';
import { TEAM_CREATE_TOOL_NAME, teamCreatePrompt } from './prompt.js';

export const teamCreateInputSchema = z.strictObject({
  team_name: z.string().min(1).max(64).describe('Name of the team'),
  description: z.string().optional().describe('What the team is for'),
});
export type TeamCreateInput = z.infer<typeof teamCreateInputSchema>;

export interface TeamCreateOutput {
  readonly team_name: string;
  readonly lead: string;
}

function validate(context: ToolUseContext): ValidationResult {
  if (!isLead(context)) return { result: false, message: 'Only the lead (the main conversation) creates the team.', errorCode: 1 };
  const team = currentTeam(context);
  if (team) return { result: false, message: `This session already has a team ("${team.name}"); a session has one. TeamDelete ends it first.`, errorCode: 2 };
  return { result: true };
}

export const TeamCreateTool = buildTool<typeof teamCreateInputSchema, TeamCreateOutput>({
  name: TEAM_CREATE_TOOL_NAME,
  searchHint: 'agent team swarm teammates create',
  inputSchema: teamCreateInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  prompt: async () => teamCreatePrompt(),
  isReadOnly: () => true,
  toAutoClassifierInput: (input) => input.team_name,
  validateInput: async (_input, context) => validate(context),
  call: async (input, context) => {
    const check = validate(context);
    if (!check.result) throw new Error(check.message);
    const team = createTeam(context, input.team_name, input.description ?? '', true);
    return { data: { team_name: team.name, lead: TEAM_LEAD } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({
    type: 'tool_result',
    tool_use_id: toolUseId,
    content: `Team "${data.team_name}" created; you are its lead ("${data.lead}"). Start teammates with the Agent tool and a name.`,
  }),
  renderToolUseMessage: (input) => input.team_name ?? '',
  renderToolResultMessage: (data) => `Team ${data.team_name}`,
});
