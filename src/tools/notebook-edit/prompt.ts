export const NOTEBOOK_EDIT_TOOL_NAME = 'NotebookEdit';

export function notebookEditPrompt(): string {
  return `Changes one cell of a Jupyter notebook (.ipynb): replace its source, insert a new cell, or delete it.

- Read the notebook first (Read shows every cell with its id); the edit fails on a notebook you have not read, or one that changed since.
- \`cell_id\` picks the cell, using the id Read showed (\`cell-N\`, counting from 0, addresses a cell that has no id).
- \`edit_mode\`: \`replace\` (default) sets the cell's source to \`new_source\`; a replaced code cell loses its old outputs and execution count. \`insert\` adds a new cell after \`cell_id\` (or at the top when \`cell_id\` is left out) and requires \`cell_type\`. \`delete\` removes the cell (\`new_source\` is ignored; pass "").
- \`cell_type\` (\`code\` or \`markdown\`) changes the type on replace; without it the cell keeps its type.
- The rest of the notebook — metadata, other cells and their outputs, indentation, key order — is kept as it was. Writes are atomic.
- Use Edit/Write for other files; do not edit .ipynb JSON with Edit.`;
}
