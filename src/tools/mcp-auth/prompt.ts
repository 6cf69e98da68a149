/** The words of the `mcp__<server>__authenticate` tool (toolgate's own; the name and shape follow Claude Code's). */

/** The tool part of the name Claude Code gives the login tool of a server that needs OAuth. */
export const MCP_AUTH_TOOL_SUFFIX = 'authenticate';

export function mcpAuthPrompt(serverName: string, serverType: string): string {
  return (
    `The MCP server "${serverName}" (${serverType}) is configured but needs an OAuth sign-in before its tools can be used. ` +
    'Calling this tool starts the sign-in: the person is shown an authorization page to open in their browser. ' +
    "Once they finish, this tool goes away and the server's own tools take its place."
  );
}

/** Headless (no one to show the page to): the command a person runs, exactly. */
export function mcpAuthHeadlessMessage(serverName: string, command: string): string {
  return (
    `MCP server "${serverName}" needs an OAuth sign-in, and this session has no one to show the sign-in page to. ` +
    `Ask the user to run \`${command}\` in a terminal, then start the session again; do not call this tool again here.`
  );
}

export function mcpAuthQuestion(serverName: string): string {
  return `MCP server "${serverName}" asks: Sign in to "${serverName}" — open this page in your browser and approve the access.`;
}
