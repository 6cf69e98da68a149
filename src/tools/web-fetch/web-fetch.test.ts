import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCanUseTool } from '../../permissions/can-use-tool.js';
import { createPermissionContext, parseRules } from '../../permissions/permission-context.js';
import { runToolUse } from '../../execution/pipeline.js';
import type { PermissionRequest } from '../../tool/tool-use-context.js';
import type { PermissionDecision } from '../../tool/permission-types.js';
import { startScriptedServer } from '../../testing/index.js';
import { assistantMessage, makeContext, tempSession, textOf, toolUse } from '../../../test/helpers/execution.js';
import { classifyAddress } from './address-policy.js';
import { clearWebFetchCache, WebFetchTool } from './index.js';

/** A one-page PDF whose text is `text`, with a correct cross-reference table. */
function tinyPdf(text: string): Buffer {
  const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const session = tempSession('toolgate-webfetch-');
let server: http.Server;
let base: string;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    const send = (type: string, body: string | Buffer, status = 200) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    switch (req.url) {
      case '/page':
        return send('text/html; charset=utf-8', '<html><head><script>evil()</script></head><body><h1>Title</h1><p>Some <b>bold</b> text.</p></body></html>');
      case '/moved':
        res.writeHead(301, { location: '/page' });
        return res.end();
      case '/elsewhere':
        res.writeHead(302, { location: `http://localhost:${port}/page` });
        return res.end();
      case '/big': {
        // 12 MiB, streamed without a content-length: the cap must stop the transfer itself.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(1024 * 1024, 'a');
        for (let i = 0; i < 12; i++) res.write(chunk);
        return res.end();
      }
      case '/doc.pdf':
        return send('application/pdf', tinyPdf('Hello from a PDF'));
      case '/long':
        return send('text/plain', 'x'.repeat(50_000) + 'THE END');
      case '/image':
        return send('image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      default:
        return send('text/plain', 'not found', 404);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  session.cleanup();
});
beforeEach(() => clearWebFetchCache());

const canUseTool = createCanUseTool();
function context(options: { allow?: string[]; client?: Anthropic; prompt?: (r: PermissionRequest) => void } = {}) {
  const permissionContext = createPermissionContext({ cwd: session.dir, rules: parseRules(options.allow ?? ['WebFetch(domain:127.0.0.1)'], 'allow', 'session') });
  return makeContext([WebFetchTool], session.dir, {
    permissionContext,
    services: options.client ? { modelClient: options.client } : {},
    ...(options.prompt
      ? {
          ui: {
            requestPermission: async (r: PermissionRequest): Promise<PermissionDecision> => {
              options.prompt!(r);
              return { behavior: 'deny', message: 'the person said no', decisionReason: { layer: 'prompt', reason: 'refused' } };
            },
          },
        }
      : {}),
  });
}
async function fetchPage(input: Record<string, unknown>, ctx = context()) {
  const outcome = await runToolUse(toolUse('WebFetch', { prompt: 'what is it?', ...input }), assistantMessage, canUseTool, ctx);
  return { outcome, text: textOf(outcome.result.content) };
}

describe('WebFetch against pages on 127.0.0.1', () => {
  it('converts HTML to Markdown (scripts dropped) and caches it', async () => {
    const first = await fetchPage({ url: `${base}/page` });
    expect(first.outcome.isError).toBe(false);
    expect(first.text).toContain('# Title');
    expect(first.text).toContain('Some **bold** text.');
    expect(first.text).not.toContain('evil');
    const before = hits;
    await fetchPage({ url: `${base}/page` });
    expect(hits).toBe(before);
  });

  it('follows a redirect on the same host; reports one to another host with the new URL', async () => {
    expect((await fetchPage({ url: `${base}/moved` })).text).toContain('# Title');
    const other = await fetchPage({ url: `${base}/elsewhere` });
    expect(other.outcome.isError).toBe(false);
    expect(other.text).toContain(`call WebFetch again with url "http://localhost:${port}/page"`);
  });

  it('refuses a 12 MiB page with a clear message', async () => {
    const big = await fetchPage({ url: `${base}/big` });
    expect(big.outcome.isError).toBe(true);
    expect(big.text).toMatch(/larger than the 10485760-byte limit/);
  });

  it('extracts the text of a PDF', async () => {
    const pdf = await fetchPage({ url: `${base}/doc.pdf` });
    expect(pdf.outcome.isError).toBe(false);
    expect(pdf.text).toContain('Hello from a PDF');
  });

  it('pages long text with offset when there is no model; refuses binary content', async () => {
    const first = await fetchPage({ url: `${base}/long` });
    expect(first.text).toContain('Call WebFetch again with offset 40000');
    const second = await fetchPage({ url: `${base}/long`, offset: 40_000 });
    expect(second.text).toContain('THE END');
    expect((await fetchPage({ url: `${base}/image` })).text).toMatch(/not text, HTML or PDF/);
  });

  it('applies the prompt through the model client, with the page framed as untrusted', async () => {
    const model = await startScriptedServer([{ content: [{ type: 'text', text: 'The page is titled Title.' }] }]);
    try {
      const client = new Anthropic({ apiKey: 'test', baseURL: model.url, maxRetries: 0 });
      const result = await fetchPage({ url: `${base}/page`, prompt: 'What is the title?' }, context({ client }));
      expect(result.text).toBe('The page is titled Title.');
      const sent = JSON.stringify(model.messageRequests[0]!.body);
      expect(model.messageRequests[0]!.body.model).toBe('claude-haiku-5-5');
      expect(sent).toContain('<untrusted_page>');
      expect(sent).toContain('Request: What is the title?');
    } finally {
      await model.close();
    }
  });
});

describe('WebFetch to inward addresses', () => {
  it('classifies addresses', () => {
    expect(classifyAddress('127.0.0.1')).toBe('loopback');
    expect(classifyAddress('10.1.2.3')).toBe('private');
    expect(classifyAddress('169.254.169.254')).toBe('metadata');
    expect(classifyAddress('::ffff:192.168.1.1')).toBe('private');
    expect(classifyAddress('fe80::1')).toBe('link-local');
    expect(classifyAddress('8.8.8.8')).toBe('public');
  });

  it('headless, a private target is denied with the reason, before any connection', async () => {
    const before = hits;
    // `domain:*` allows every host, but says nothing about inward addresses.
    const r = await fetchPage({ url: `${base}/page` }, context({ allow: ['WebFetch(domain:*)'] }));
    expect(r.outcome.isError).toBe(true);
    expect(r.text).toMatch(/loopback address: 127\.0\.0\.1/);
    expect(hits).toBe(before);
    const meta = await fetchPage({ url: 'http://169.254.169.254/latest/meta-data/' }, context({ allow: ['WebFetch(domain:*)'] }));
    expect(meta.text).toMatch(/metadata address/);
  });

  it("a redirect to an inward address asks again, naming the call's own id (not an earlier call's with the same URL)", async () => {
    const asked: PermissionRequest[] = [];
    const ctx = makeContext([WebFetchTool], session.dir, {
      permissionContext: createPermissionContext({ cwd: session.dir, rules: parseRules(['WebFetch(domain:*)'], 'allow', 'session') }),
      services: {},
      ui: { requestPermission: async (r: PermissionRequest): Promise<PermissionDecision> => (asked.push(r), { behavior: 'allow', updatedInput: r.input, decisionReason: { layer: 'prompt', reason: 'yes' } }) },
    });
    const url = `${base}/moved`;
    const [first, second] = [toolUse('WebFetch', { url, prompt: 'a' }), toolUse('WebFetch', { url, prompt: 'b' })];
    await runToolUse(second, { role: 'assistant', content: [first, second] }, canUseTool, ctx);
    // The check asks for /moved; the call asks again for /page, where it was sent.
    expect(asked.map((r) => [r.input.url, r.toolUseID])).toEqual([
      [url, second.id],
      [`${base}/page`, second.id],
    ]);
  });

  it('a name that resolves inward is caught after DNS, and the person is asked', async () => {
    const asked: PermissionRequest[] = [];
    const r = await fetchPage({ url: `http://localhost:${port}/page` }, context({ allow: ['WebFetch(domain:*)'], prompt: (req) => asked.push(req) }));
    expect(r.outcome.isError).toBe(true);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.ask.message).toMatch(/localhost \((127\.0\.0\.1|::1)\)/);
  });
});
