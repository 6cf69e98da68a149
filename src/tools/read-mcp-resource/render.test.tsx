import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { ReadMcpResourceTool, type ReadMcpResourceData } from './index.js';

describe('ReadMcpResource views', () => {
  it('draw the server and URI, then the parts read: text size, images, blobs saved to disk', async () => {
    const views = await ReadMcpResourceTool.loadViews!();
    const options = { columns: 80, verbose: false, cwd: '/' };
    expect(render(<Box>{views.renderToolUseMessage!({ server: 'docs', uri: 'docs://readme' }, options)}</Box>).lastFrame()).toBe('docs docs://readme');
    const data: ReadMcpResourceData = {
      contents: [
        { uri: 'docs://readme', mimeType: 'text/markdown', text: 'x'.repeat(2048) },
        { uri: 'docs://logo', mimeType: 'image/png', image: 'iVBORw0KGgo=' },
        { uri: 'docs://blob', mimeType: 'application/zip', blobSavedTo: '/tmp/blob.zip', bytes: 5120 },
      ],
    };
    const frame = render(<Box>{views.renderToolResultMessage!(data, [], { ...options, input: {} })}</Box>).lastFrame();
    expect(frame).toBe('Read 3 parts · 2.0 KB of text · 1 image\nsaved to /tmp/blob.zip (5.0 KB)');
  });
});
