import { PDF_MAX_PAGES_PER_READ, PDF_PAGES_REQUIRED_ABOVE } from './limits.js';

export const READ_TOOL_NAME = 'Read';

export function readPrompt(maxTokens: number): string {
  return `Reads a file from the local filesystem: text, images, PDFs and Jupyter notebooks.

- Give \`file_path\` as an absolute path. A relative path is resolved against the current working directory, and the result names the absolute path it read.
- By default you get the whole file from its first line. To read part of it, pass \`offset\` (the 1-based line to start at) and \`limit\` (how many lines).
- Output format: every line starts with its line number and ONE tab, then the line exactly as it is in the file (a line break at the end of the file shows as a last, empty numbered line). Everything after that single tab is file content. When you copy text into Edit's \`old_string\`, leave out the number and the tab and keep the file's own tabs and spaces exactly.
- One result holds at most about ${maxTokens} tokens. A page cut short by that cap is marked as a PARTIAL view, with the offset and limit for the next page — do not draw conclusions about the rest of the file from a partial page.
- Files too large to read whole (tens of megabytes) must be read with \`offset\`/\`limit\`; lines near the end of a huge file are still quick to get. To find something in a large file, use Grep first and then read around the line it reports.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images; very large ones are scaled down first, and a note gives the scale.
- PDFs: the text of each page. Pass \`pages\` as "3" or "1-5" (at most ${PDF_MAX_PAGES_PER_READ} pages per call); PDFs over ${PDF_PAGES_REQUIRED_ABOVE} pages require it.
- Jupyter notebooks (.ipynb): every cell with its outputs. Change cells with NotebookEdit.
- Directories, binary files, device files (/dev/…), named pipes and sockets are refused with an error. List a directory with Bash \`ls\` or find files with Glob.
- An empty file, or an offset past the end, returns a short system reminder instead of lines.
- Edit and Write need the file to have been read in this conversation first; a read is what lets them change it. Reading several files at once is fine: call Read for each in one message.`;
}
