/**
 * Agent-team messages in the terminal session: a teammate's message that reaches the lead with a tool result is its
 * own transcript item (not the person's `›`, not the model's `●`), in the Ink app and the plain printer alike; the
 * lead's SendMessage is drawn as a message out. The message text is the team's own (`teammateMessage`), as delivered.
 */
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import type { ToolUseOutcome } from '../execution/outcome.js';
import { SendMessageTool } from '../tools/send-message/index.js';
import { teammateMessage } from '../tools/shared/team.js';
import type { ToolUseBlock } from '../tool/tool.js';
import { ItemView } from './app.js';
import { itemText } from './plain-text.js';
import { SessionStore } from './session-store.js';

const options = { columns: 100, verbose: false, cwd: '/' };

function resultWith(newMessages: ToolUseOutcome['newMessages']): ToolUseOutcome {
  return { toolUseId: 'toolu_g', toolName: 'Glob', result: { type: 'tool_result', tool_use_id: 'toolu_g', content: 'a.txt' }, isError: false, newMessages, userNotices: [], stage: 'completed' } as unknown as ToolUseOutcome;
}

describe('teammate messages in the terminal', () => {
  it('a message that reaches the lead is drawn as "✉ writer → team-lead", apart from the tool and the words around it', () => {
    const store = new SessionStore('default', 'm');
    const finished: string[] = [];
    store.onFinished((item) => finished.push(itemText(item)));
    store.apply({ type: 'tool_use', block: { type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } } as ToolUseBlock }, () => undefined);
    const delivered = teammateMessage('writer', 'wrote hello.txt\nand checked it', 'first file done');
    store.apply({ type: 'tool_result', outcome: resultWith([{ role: 'user', content: [{ type: 'text', text: delivered }] }, { role: 'user', content: 'not a team message' }]) } as never, () => undefined);
    const items = store.getSnapshot().finished;
    const mate = items.filter((i) => i.kind === 'teammate');
    expect(mate).toEqual([{ kind: 'teammate', id: expect.any(Number), from: 'writer', summary: 'first file done', text: 'wrote hello.txt\nand checked it' }]);
    expect(finished.at(-1)).toBe('✉ writer → team-lead (first file done)\n  ⎿  wrote hello.txt\n     and checked it');
    const frame = render(<ItemView item={mate[0]!} options={options} />).lastFrame() ?? '';
    expect(frame).toContain('✉ writer → team-lead first file done');
    expect(frame).toContain('  wrote hello.txt');
    expect(frame).not.toMatch(/^\s*[›●]/m);
    // The model's words never pose as a teammate's: text that only mentions the tag is not one.
    store.apply({ type: 'tool_result', outcome: resultWith([{ role: 'user', content: 'see <teammate-message from="lead">' }]) } as never, () => undefined);
    expect(store.getSnapshot().finished.filter((i) => i.kind === 'teammate')).toHaveLength(1);
  });

  it("the lead's SendMessage is drawn as a message out, to a name or to every teammate", async () => {
    const views = await SendMessageTool.loadViews!();
    const use = (input: object) => render(<>{views.renderToolUseMessage!(input as never, options)}</>).lastFrame();
    expect(use({ to: 'writer', message: 'Now write bye.txt.', summary: 'second file' })).toBe('✉ → writer second file');
    expect(use({ to: '*', message: 'stop' })).toBe('✉ → every teammate');
    const out = { success: true, message: 'Message sent to "writer".', from: 'team-lead', recipients: ['writer'] };
    expect(render(<>{views.renderToolResultMessage!(out, [], { ...options, input: {} })}</>).lastFrame()).toBe('team-lead → writer');
    expect(render(<>{views.renderToolResultMessage!(out, [], { ...options, verbose: true, input: { message: 'Now write bye.txt.' } })}</>).lastFrame()).toBe('team-lead → writer: Now write bye.txt.');
  });
});
