/**
 * Stand-in tools for the permission engine's tests: the engine sees a tool only through its traits and schema, so a
 * shell and a file reader that declare what the real Bash and Read declare are decided exactly as those are — without
 * loading the tools (and, for Bash, its parser and process machinery) into a test of pure decisions.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';

/** A tool named Bash with the shell trait (`command`). */
export const fakeBash = buildTool({
  name: 'Bash',
  permissionTraits: { kind: 'shell', commandField: 'command' },
  inputSchema: z.object({ command: z.string() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'bash',
  call: async () => ({ data: '' }),
  isReadOnly: () => false,
});

/** A tool named Read with the read trait (`file_path`). */
export const fakeRead = buildTool({
  name: 'Read',
  permissionTraits: { kind: 'read', pathField: 'file_path' },
  inputSchema: z.object({ file_path: z.string() }),
  maxResultSizeChars: 1000,
  prompt: async () => 'read',
  call: async () => ({ data: '' }),
  isReadOnly: () => true,
});
