export { NotebookEditTool, type NotebookEditOutput } from './notebook-edit-tool.js';
