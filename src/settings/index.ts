export * from './load-settings.js';
export * from './read-settings-file.js';
export * from './settings-keys.js';
export * from './grants.js';
