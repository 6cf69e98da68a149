import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { mcpAuthViews } from './render.js';

describe('mcp__<server>__authenticate views', () => {
  const options = { columns: 120, verbose: false, cwd: '/', input: {} };
  it('show the page to open as text, a finished sign-in, or what went wrong', () => {
    const shown = { status: 'auth_url' as const, serverName: 'docs', authUrl: 'https://auth.example/authorize?x=1', message: '…' };
    expect(render(<Box>{mcpAuthViews.renderToolResultMessage!(shown, [], options)}</Box>).lastFrame()).toBe('Open this page to sign in to docs: https://auth.example/authorize?x=1');
    const done = { status: 'auth_url' as const, serverName: 'docs', message: 'signed in' };
    expect(render(<Box>{mcpAuthViews.renderToolResultMessage!(done, [], options)}</Box>).lastFrame()).toBe('Signed in to docs');
    const failed = { status: 'error' as const, serverName: 'docs', message: 'The person declined the sign-in' };
    expect(render(<Box>{mcpAuthViews.renderToolResultMessage!(failed, [], options)}</Box>).lastFrame()).toBe('The person declined the sign-in');
  });
});
