export * from './base-tools.js';
export * from './tool-pool.js';
export * from './tool-search-mode.js';
