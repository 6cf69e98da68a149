export * from './abort-reasons.js';
export * from './backend.js';
export * from './budget.js';
export * from './errors.js';
export * from './input-validation.js';
export * from './messages.js';
export * from './orchestration.js';
export * from './outcome.js';
export * from './permission-messages.js';
export * from './pipeline.js';
export * from './streaming-tool-executor.js';
export { NON_CLIENT_BLOCK_TYPES, snapshotAssistantMessage, snapshotContentBlock, ToolUseBlockError } from './block-snapshot.js';
export type { BlockSnapshot } from './block-snapshot.js';
export {
  buildRedactor,
  DEFAULT_SECRET_ENV_PATTERNS,
  isSecretEnvName,
  redactorFor,
  refreshEnvironmentSecrets,
  isRedactableSecret,
  MIN_NAMED_SECRET_LENGTH,
  registerSecretValues,
  secretEnvNames,
  SecretRedactor,
  urlCredentials,
} from './redaction.js';
export type { RedactionSettings, SecretEntry } from './redaction.js';
