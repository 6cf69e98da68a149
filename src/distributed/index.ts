export * from './remote-tool-call.js';
export * from './durable-tool-call-backend.js';
export * from './progress-channel.js';
export * from './restate-tool-engine.js';
export * from './backend-spec.js';
