import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolUse } from '../../execution/pipeline.js';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../../permissions/permission-context.js';
import { assistantMessage, makeContext, tempSession, toolUse } from '../../../test/helpers/execution.js';
import { clearWebFetchCache, WebFetchTool, type WebFetchOutput } from './index.js';

const session = tempSession('toolgate-webfetch-views-');
let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/page') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('x'.repeat(2048));
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  session.cleanup();
});

async function fetchPage(url: string): Promise<WebFetchOutput> {
  clearWebFetchCache();
  const permissionContext = createPermissionContext({ cwd: session.dir, rules: parseRules(['WebFetch(domain:127.0.0.1)'], 'allow', 'session') });
  const context = makeContext([WebFetchTool], session.dir, { permissionContext });
  const outcome = await runToolUse(toolUse('WebFetch', { url, prompt: 'what is it?' }), assistantMessage, createCanUseTool(), context);
  return outcome.output as WebFetchOutput;
}

const options = { columns: 100, verbose: false, cwd: '/' };
const frameOf = (output: WebFetchOutput, url: string) =>
  render(<Box>{webFetchViews.renderToolResultMessage!(output, [], { ...options, input: { url } })}</Box>).lastFrame()!;
let webFetchViews: Awaited<ReturnType<NonNullable<typeof WebFetchTool.loadViews>>>;

describe('WebFetch views', () => {
  it('draw the URL, then the status, the size and the time of the fetch; a failed status in its own words', async () => {
    webFetchViews = await WebFetchTool.loadViews!();
    const url = `${base}/page`;
    expect(render(<Box>{webFetchViews.renderToolUseMessage!({ url, prompt: 'p' }, options)}</Box>).lastFrame()).toBe(url);
    const ok = await fetchPage(url);
    expect(frameOf(ok, url)).toMatch(/^200 OK · 2\.0 KB · \d+\.\ds$/);
    expect(WebFetchTool.renderToolResultMessage!(ok)).toMatch(/^200 OK · 2048 bytes · \d+\.\ds$/);
    const missing = await fetchPage(`${base}/gone`);
    expect(frameOf(missing, `${base}/gone`)).toMatch(/^404 Not Found · 8 B · \d+\.\ds$/);
  });

  it('say when a redirect to another host was not followed', () => {
    const output: WebFetchOutput = { bytes: 0, code: 302, codeText: 'Found', result: '…', durationMs: 120, url: 'http://a.test/x' };
    expect(frameOf(output, 'http://a.test/x')).toBe('302 Found · redirects to another host, not followed · 0.1s');
  });
});
