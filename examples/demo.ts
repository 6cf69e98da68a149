/**
 * `npm run demo`: the agent loop offline. The scripted server (`toolgate/testing`) plays the model from
 * `demo-script.json`; everything else is real — the SDK, the runtime, the permission rules of
 * `workspace/.claude/settings.json`, the tools running on `workspace/`. Against Claude, with a key:
 *   ANTHROPIC_API_KEY=... npx toolgate run -p "What do the files here say?" --cwd examples/workspace
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createToolRuntime, query } from 'toolgate';
import { loadScript, startScriptedServer } from 'toolgate/testing';

const here = import.meta.dirname;
const server = await startScriptedServer(loadScript(path.join(here, 'demo-script.json')));
const client = new Anthropic({ apiKey: 'demo', baseURL: server.url });
const runtime = await createToolRuntime({
  cwd: path.join(here, 'workspace'),
  settings: { sources: ['project'] },
  sessionDir: mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-')),
});
const out = (text: string) => process.stdout.write(text);
const firstLine = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content)).split('\n')[0]!.slice(0, 100);
try {
  out('> What do the files here say?\n\n');
  for await (const event of query({ runtime, client, prompt: 'What do the files here say?', model: 'claude-sonnet-4-6' })) {
    if (event.type === 'text_delta') out(event.text);
    if (event.type === 'tool_use') out(`\n  → ${event.block.name} ${JSON.stringify(event.block.input)}`);
    if (event.type === 'tool_result') {
      const text = (c: unknown) => (Array.isArray(c) ? c.map((b: { text?: string }) => b.text ?? '').join('') : c);
      out(`\n  ← ${event.outcome.toolName}${event.outcome.isError ? ' (error)' : ''}: ${firstLine(text(event.outcome.result.content))}`);
    }
    if (event.type === 'assistant') out('\n');
    if (event.type === 'result') {
      const r = event.result;
      out(`\n[${r.stopReason} after ${r.turns} turns · ${r.usage.input_tokens} in / ${r.usage.output_tokens} out tokens · $${r.costUsd.toFixed(4)} · ${Math.round(r.durationMs)} ms]\n`);
    }
  }
} finally {
  await runtime.dispose();
  await server.close();
}
