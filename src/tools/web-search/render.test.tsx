import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { WebSearchTool, type WebSearchOutput } from './index.js';

// The scripted server cannot play the API's server-side search blocks, so the outputs are written out here in the
// shape `call()` builds from them (see collect() in index.ts).
const options = { columns: 80, verbose: false, cwd: '/' };
const output: WebSearchOutput = {
  query: 'ink static',
  results: [
    'Here is what I found.',
    { tool_use_id: 'srvtoolu_1', content: [{ title: 'Ink', url: 'https://github.com/vadimdemedes/ink' }, { title: 'Static', url: 'https://example.com/static' }] },
    { tool_use_id: 'srvtoolu_2', content: [{ title: 'More', url: 'https://example.com/more' }] },
  ],
  durationSeconds: 2.34,
};

describe('WebSearch views', () => {
  it('draw the query with its domain filter, then the number of results and the time', async () => {
    const views = await WebSearchTool.loadViews!();
    const use = render(<Box>{views.renderToolUseMessage!({ query: 'ink static', allowed_domains: ['github.com'] }, options)}</Box>);
    expect(use.lastFrame()).toBe('"ink static" · only github.com');
    const done = render(<Box>{views.renderToolResultMessage!(output, [], { ...options, input: {} })}</Box>);
    expect(done.lastFrame()).toBe('3 results · 2.3s');
    expect(WebSearchTool.renderToolResultMessage!(output)).toBe('3 results · 2.3s');
    const verbose = render(<Box>{views.renderToolResultMessage!(output, [], { ...options, verbose: true, input: {} })}</Box>);
    expect(verbose.lastFrame()!.split('\n')[1]).toBe('Ink · https://github.com/vadimdemedes/ink');
  });

  it('show a search error in red words, with no results', async () => {
    const views = await WebSearchTool.loadViews!();
    const failed: WebSearchOutput = { query: 'x', results: ['Search error: max_uses_exceeded', { tool_use_id: 's', content: [] }], durationSeconds: 0.5 };
    const frame = render(<Box>{views.renderToolResultMessage!(failed, [], { ...options, input: {} })}</Box>).lastFrame();
    expect(frame).toBe('0 results · 0.5s\nSearch error: max_uses_exceeded');
  });
});
