export { ReadTool } from './read-tool.js';
export type { ReadOutput, TextFileOutput, ImageFileOutput, NotebookFileOutput, PdfFileOutput } from './read-output.js';
