/** What the model reads about LSP. */
export const LSP_TOOL_NAME = 'LSP';

export const LSP_OPERATIONS = [
  'goToDefinition',
  'findReferences',
  'hover',
  'documentSymbol',
  'workspaceSymbol',
  'goToImplementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
] as const;

export function lspPrompt(): string {
  return `Asks a language server about the code, as an editor would: where a symbol is defined or implemented, every place it is used, its type and documentation, the symbols of a file or of the whole project, and who calls a function or what it calls. More precise than a text search for names that are common words or overloaded.

- operation: goToDefinition, goToImplementation, findReferences, hover, documentSymbol (the symbols of filePath), workspaceSymbol (symbols matching query across the project), prepareCallHierarchy (the function at the position), incomingCalls (its callers), outgoingCalls (what it calls).
- filePath: the file to ask about (absolute, or relative to the working directory). line and character: the position of the symbol, both starting at 1, as Read numbers lines; character counts from the line's first character.
- query: the name or part of a name, for workspaceSymbol.
- Results are file:line:column, relative to the project, one per line.
- TypeScript and JavaScript (typescript-language-server) and Python (pyright) work when their servers are installed; others can be configured. The first call to a language starts its server, which can take a few seconds on a large project.`;
}
