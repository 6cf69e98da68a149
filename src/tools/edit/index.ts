export { EditTool } from './edit-tool.js';
export type { EditOutput } from './edit-output.js';
