export * from './api-format.js';
export * from './build-tool.js';
export * from './deep-immutable.js';
export * from './file-state-cache.js';
export * from './notification-queue.js';
export * from './permission-types.js';
export * from './tool-result.js';
export * from './tool-use-context.js';
export type * from './tool.js';
