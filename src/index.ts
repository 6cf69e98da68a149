// The library entry: every layer's public API, bottom to top. Built-in tools are reached through the registry
// (getAllBaseTools / assembleToolPool) so that a program pays only for the tools it loads.
export * from './tool/index.js';
export * from './permissions/index.js';
export * from './hooks/index.js';
export * from './execution/index.js';
export * from './registry/index.js';
export * from './settings/index.js';
export * from './agent/index.js';
