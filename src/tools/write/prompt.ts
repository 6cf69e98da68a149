export const WRITE_TOOL_NAME = 'Write';

export function writePrompt(): string {
  return `Writes a file to the local filesystem, creating it or replacing its whole content.

- Give \`file_path\` as an absolute path (a relative one is resolved against the current working directory). Missing parent directories are created.
- An existing file must have been read in full in this conversation first, or the write fails: a partial read (offset/limit, a PARTIAL view, cut lines) is not enough. If the file changed on disk since your read, the write fails and shows what changed — read it again.
- For changes to an existing file prefer Edit: it sends only the change and cannot lose content you did not see. Use Write for new files and complete rewrites.
- The file keeps its encoding, byte-order mark, line endings (write \`\\n\`; a CRLF file gets CRLF) and permissions. The write is atomic: readers see the old file or the new one, never half of it.
- Do not create documentation or README files unless asked to.`;
}
