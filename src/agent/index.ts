export { createToolRuntime, RUNTIME_DISPOSED } from './create-tool-runtime.js';
export { loadRuntimeSettings, sandboxSettings, SettingsLoadError, type RuntimeSettings } from './runtime-settings.js';
export { defaultSessionDir, stateDirectory } from './session-dir.js';
export { ToolRun, ToolRunError } from './tool-run.js';
export type * from './types.js';
