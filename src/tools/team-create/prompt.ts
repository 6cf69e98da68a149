/** What the model reads about TeamCreate. */
export const TEAM_CREATE_TOOL_NAME = 'TeamCreate';

export function teamCreatePrompt(): string {
  return `Creates the session's agent team, with you as its lead ("team-lead"). A session has one team; naming it is optional, since the first teammate you start makes one.

- Start teammates with the Agent tool and a \`name\`: each runs in the background, concurrently, with your permission rules (never more), and is reached with SendMessage (to: its name).
- Use a task list (TodoWrite) to split the work; say in each teammate's prompt which part is its own.
- Each teammate's words at the end of its turns come to you as teammate messages. End the team with TeamDelete when the work is done.`;
}
