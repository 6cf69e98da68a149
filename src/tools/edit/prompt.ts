export const EDIT_TOOL_NAME = 'Edit';

export function editPrompt(): string {
  return `Replaces exact text in a file: \`old_string\` becomes \`new_string\`.

- Read the whole file in this conversation first; editing a file you have not read fails. A partial read (one offset/limit window, a PARTIAL view) does not count on its own, but windows add up: read a large file in several windows and once every line has been seen, it counts as read.
- \`old_string\` must match the file character for character, indentation included, and must occur exactly once — otherwise the edit fails and says how many times it occurs. Add a few surrounding lines to make it unique, or set \`replace_all: true\` to change every occurrence (useful for renaming).
- Build \`old_string\` from Read output without the line-number prefix: each Read line is the number, ONE tab, then the content. Keep tabs as tabs and spaces as spaces.
- If the exact text is not found, the tool retries once with forgiving comparisons (Read prefixes left in, curly vs straight quotes, trailing spaces) and uses that only when it finds exactly one match; the result then says which one it used. Indentation is never loosened: tabs and spaces must be right.
- If the file changed since you read it (a formatter, the user), the edit still goes ahead when \`old_string\` matches the current file exactly once, and the result tells you the file had other changes; otherwise it fails and shows what changed.
- \`new_string\` must differ from \`old_string\`. An empty \`old_string\` creates a new file (or fills an empty one) with \`new_string\`.
- Line endings, encoding, byte-order mark and file permissions are kept; write \`\\n\` line breaks even in CRLF files. Writes are atomic.
- Prefer Edit over Write for changes to existing files. For Jupyter notebooks use NotebookEdit.`;
}
