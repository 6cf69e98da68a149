import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { LspTool } from './index.js';

describe('LSP views', () => {
  it('draw the operation and position, then the count or the hover line', async () => {
    const views = await LspTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/p' };
    expect(render(<Box>{views.renderToolUseMessage!({ operation: 'findReferences', filePath: '/p/src/a.ts', line: 3, character: 7 }, options)}</Box>).lastFrame()).toBe('findReferences src/a.ts:3:7');
    const data = { operation: 'findReferences' as const, filePath: 'src/a.ts', result: 'a.ts:1:1\nb.ts:2:2', resultCount: 2, fileCount: 2, server: 'typescript' };
    expect(render(<Box>{views.renderToolResultMessage!(data, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('2 results in 2 files');
    const hover = { ...data, operation: 'hover' as const, result: 'function greet(): void\nmore', resultCount: 1, fileCount: 0 };
    expect(render(<Box>{views.renderToolResultMessage!(hover, [], { ...options, input: {} })}</Box>).lastFrame()).toBe('function greet(): void');
  });
});
