// The session floor: one `Session` per conversation under every face (the Agent SDK face, the CLI, the terminal UI,
// the durable backend), made from `SessionOptions` in toolgate's own words.
export { Session } from './session.js';
export { SessionOptionError } from './options.js';
export type { SessionBackend, SessionEvent, SessionLoop, SessionOptions, SessionSettingSource, SessionTaskEnd } from './options.js';
export type { ContextUsage } from './context-usage.js';
export type { SessionMcpServer } from './mcp.js';
export type { RuleRemoval } from './rules.js';
export { backgroundTaskOf } from './background.js';
export type { CheckpointRecord, CheckpointSettings, RewindResult } from './checkpoints.js';
