/**
 * `toolgate/testing`: a scripted Messages API server that plays a model for tests and demos.
 */
export { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from './scripted-server.js';
export { loadScript, parseScript } from './script.js';
export type {
  Chunking,
  RecordedRequest,
  Script,
  ScriptedBlock,
  ScriptedError,
  ScriptedResponse,
  ScriptedTurn,
  ScriptedUsage,
  TurnContext,
} from './script.js';
export type { WireEvent } from './stream-turn.js';
