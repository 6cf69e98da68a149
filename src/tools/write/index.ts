export { WriteTool, type WriteOutput } from './write-tool.js';
