import { Box } from 'ink';
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { ToolProgress } from '../../tool/tool.js';
import { AgentTool, type AgentOutput } from './index.js';
import { agentProgressReporter, type AgentProgress } from './progress.js';

const options = { columns: 80, verbose: false, cwd: '/' };

/** Feeds the reporter a child's events and keeps every snapshot it sends. */
function reported(): { progress: AgentProgress[]; send: ReturnType<typeof agentProgressReporter> } {
  const progress: AgentProgress[] = [];
  const send = agentProgressReporter({ agentId: 'agent-1', description: 'survey the repo', toolUseID: '' }, (p: ToolProgress<AgentProgress>) => progress.push(p.data));
  return { progress, send };
}

describe('Agent progress and views', () => {
  it('fold the child\'s events into snapshots: calls started and finished, tokens, the latest words', () => {
    const { progress, send } = reported();
    send({ type: 'usage', totalTokens: 0 }); // nothing new: no snapshot
    send({ type: 'text', text: 'Let me look around.\nmore' });
    send({ type: 'tool_start', toolUseId: 'a', toolName: 'Read', summary: 'src/a.ts' });
    send({ type: 'tool_end', toolUseId: 'a', isError: false });
    send({ type: 'tool_start', toolUseId: 'b', toolName: 'Bash', summary: 'npm test' });
    send({ type: 'tool_end', toolUseId: 'b', isError: true });
    send({ type: 'usage', totalTokens: 1234 });
    expect(progress).toHaveLength(6);
    expect(progress.at(-1)).toMatchObject({
      type: 'agent_progress',
      agentId: 'agent-1',
      toolUseCount: 2,
      startedCount: 2,
      totalTokens: 1234,
      lastActivity: 'Let me look around.',
      recent: [
        { id: 'a', name: 'Read', summary: 'src/a.ts', status: 'done' },
        { id: 'b', name: 'Bash', summary: 'npm test', status: 'error' },
      ],
    });
  });

  it('draw the description, a short live list of the latest calls with a tally, then one summary line', async () => {
    const views = await AgentTool.loadViews!();
    const use = render(<Box>{views.renderToolUseMessage!({ description: 'survey the repo', subagent_type: 'Explore' }, options)}</Box>);
    expect(use.lastFrame()).toBe('survey the repo · Explore');

    const { progress, send } = reported();
    expect(render(<Box>{views.renderToolUseProgressMessage!([], { ...options, elapsedMs: 1000 })}</Box>).lastFrame()).toBe('Starting… 1s');
    for (const [i, file] of ['a.ts', 'b.ts', 'c.ts', 'd.ts'].entries()) {
      send({ type: 'tool_start', toolUseId: `t${i}`, toolName: 'Read', summary: file });
      send({ type: 'tool_end', toolUseId: `t${i}`, isError: false });
    }
    send({ type: 'tool_start', toolUseId: 'g', toolName: 'Grep', summary: 'TODO' });
    send({ type: 'usage', totalTokens: 2500 });
    const live = render(<Box>{views.renderToolUseProgressMessage!(progress, { ...options, elapsedMs: 12_000 })}</Box>).lastFrame()!;
    expect(live.split('\n')).toEqual(['+2 earlier calls', '✓ Read(c.ts)', '✓ Read(d.ts)', '○ Grep(TODO)', 'Running… 4 tool uses · 2.5k tokens · 12s']);

    // Between calls the child's latest words show instead.
    send({ type: 'tool_end', toolUseId: 'g', isError: false });
    send({ type: 'text', text: 'Found three TODOs.' });
    const between = render(<Box>{views.renderToolUseProgressMessage!(progress, { ...options, elapsedMs: 13_000 })}</Box>).lastFrame()!;
    expect(between.split('\n').slice(-2)).toEqual(['Found three TODOs.', 'Running… 5 tool uses · 2.5k tokens · 13s']);

    const output: AgentOutput = {
      status: 'completed',
      agentId: 'agent-1',
      agentType: 'Explore',
      content: [{ type: 'text', text: 'Three TODOs in src.' }],
      totalToolUseCount: 5,
      totalDurationMs: 13_400,
      totalTokens: 2500,
      usage: { input_tokens: 2000, output_tokens: 500, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      isError: false,
    };
    const done = render(<Box>{views.renderToolResultMessage!(output, progress, { ...options, input: {} })}</Box>);
    expect(done.lastFrame()).toBe('Done (5 tool uses · 2.5k tokens · 13.4s)');
    const verbose = render(<Box>{views.renderToolResultMessage!(output, progress, { ...options, verbose: true, input: {} })}</Box>);
    expect(verbose.lastFrame()).toBe('Done (5 tool uses · 2.5k tokens · 13.4s)\nThree TODOs in src.');
    expect(AgentTool.renderToolResultMessage!(output)).toBe('Done (5 tool uses · 2.5k tokens · 13.4s)');
    const bg = render(<Box>{views.renderToolResultMessage!({ status: 'async_launched', agentId: 'agent-9', agentType: 'x', description: 'd', prompt: 'p', outputFile: '/tmp/agent-9.output' }, [], { ...options, input: {} })}</Box>);
    expect(bg.lastFrame()).toBe('Running in the background as agent-9');
  });
});
