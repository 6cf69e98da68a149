/**
 * toolgate's version, as package.json says (test/version.test.ts holds them equal): what the MCP server and clients
 * announce, what telemetry's resource and the Agent SDK face's init message carry. A constant rather than a read of
 * package.json: the bundles and the library entry would each have to find the file again at start.
 */
export const TOOLGATE_VERSION = '0.1.0';
