/**
 * A call's preview (`Tool.permissionPreview`: a simulated `sed -i`'s edit) as plain text, for a face that can show
 * only text (the Agent SDK's `canUseTool` description, the MCP server's elicitation): the summary and the diff,
 * bounded, with control characters spelled out so that a file's bytes cannot redraw a terminal.
 */
import type { PermissionPreview } from '../tool/permission-types.js';

const MAX_LINES = 60;

function visible(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

export function describePreview(preview: PermissionPreview): string {
  const lines = [visible(preview.summary)];
  let total = 0;
  for (const hunk of preview.hunks ?? []) {
    for (const line of hunk.lines) {
      if (line.startsWith('\\')) continue;
      if (++total <= MAX_LINES) lines.push(visible(line));
    }
  }
  if (total > MAX_LINES) lines.push(`… ${total - MAX_LINES} more lines`);
  return lines.join('\n');
}
