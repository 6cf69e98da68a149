/** What the model reads about TeamDelete. */
export const TEAM_DELETE_TOOL_NAME = 'TeamDelete';

export function teamDeletePrompt(): string {
  return `Ends the session's agent team: every teammate still running is stopped (its running calls cancelled), and the team is gone. Call it when the team's work is done; a new teammate afterwards starts a new team.`;
}
