export { createToolRuntime, RUNTIME_DISPOSED } from './create-tool-runtime.js';
export { loadRuntimeSettings, sandboxSettings, SettingsLoadError, type RuntimeSettings } from './runtime-settings.js';
export { defaultSessionDir, stateDirectory } from './session-dir.js';
export { ToolRun, ToolRunError } from './tool-run.js';
export type * from './types.js';
export type { QueryOptions } from './query-options.js';
export { query, nextRequest, DEFAULT_MODEL, DEFAULT_MAX_TOKENS, type NextRequestOptions } from './query.js';
export { modelStep, type ModelRequest, type ModelStepOptions, type ModelStepResult } from './model-step.js';
export { startToolStep, merge as mergeToolResults, type ToolStep, type ToolStepResult } from './tool-step.js';
export { classifyApiError, retryDelayMs, type ClassifiedError, type RetryPolicy } from './retry.js';
export { costOf, priceOf, addUsage, emptyUsage } from './pricing.js';
export { buildSystemPrompt, isGitRepository, type SystemPromptOptions } from './system-prompt.js';
export { latestSessionFor, readTranscript, transcriptPath, TranscriptWriter, TRANSCRIPT_FILE, type TranscriptEntry } from './transcript.js';
export { compactConversation, CompactError, SUMMARY_PREFIX, type CompactOptions, type CompactResult } from './compact.js';
export { createSubagentRunner, type SubagentRunnerDeps, type QueryFn } from './subagent-runner.js';
export {
  expandSlashCommand,
  listSlashCommands,
  slashCommandInit,
  endCommandTurn,
  CommandCatalog,
  SlashCommandError,
  type SlashCommandExpansion,
  type SlashCommandInfo,
} from './slash-commands.js';
