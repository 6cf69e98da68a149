import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { ListMcpResourcesTool, type ListMcpResourcesData } from './index.js';

describe('ListMcpResources views', () => {
  it('draw the server asked, then the count of resources and every server that failed', async () => {
    const views = await ListMcpResourcesTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    expect(render(<Box>{views.renderToolUseMessage!({}, options)}</Box>).lastFrame()).toBe('all servers');
    const data: ListMcpResourcesData = {
      resources: [
        { server: 'docs', uri: 'docs://a', name: 'a' },
        { server: 'docs', uri: 'docs://b', name: 'b' },
        { server: 'files', uri: 'file:///c', name: 'c' },
      ],
      errors: [{ server: 'broken', error: 'not connected' }],
    };
    const draw = (verbose: boolean) => render(<Box>{views.renderToolResultMessage!(data, [], { ...options, verbose, input: {} })}</Box>).lastFrame();
    expect(draw(false)).toBe('3 resources from 2 servers\nbroken: not connected');
    expect(draw(true)).toBe('3 resources from 2 servers\ndocs: docs://a\ndocs: docs://b\nfiles: file:///c\nbroken: not connected');
  });
});
