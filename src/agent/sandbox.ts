/**
 * The OS sandbox a runtime's shell commands run in, as the faces that show or try it see it (`toolgate sandbox
 * check`): whether it can run here, a command wrapped in it, and its shutdown. The Bash tool owns it; a face reaches it
 * through the runtime's layer, never a tool's folder (test/under-the-runtime.test.ts).
 */
export { detectSandbox, type SandboxAvailability } from '../tools/bash/sandbox.js';
export { shutdownSandboxRuntime, wrapInSandbox } from '../tools/bash/sandbox-runtime.js';
