import { describe, expect, it } from 'vitest';
import type { AnyTool, MessageParam } from '../tool/tool.js';
import { announceDeferredTools } from './prompt-messages.js';
import type { ToolRuntime } from './types.js';
import { RUNTIME_CONTEXT } from './runtime-context.js';

const tool = (name: string, extra: Partial<AnyTool> = {}) => ({ name, ...extra }) as AnyTool;
const fakeRuntime = (tools: AnyTool[], loaded?: ReadonlySet<string>) => ({ tools, [RUNTIME_CONTEXT]: { options: { loadedDeferredTools: loaded } } }) as unknown as ToolRuntime;
const announced = (runtime: ToolRuntime): string => {
  const prompt: MessageParam[] = [{ role: 'user', content: 'hi' }];
  announceDeferredTools(prompt, runtime);
  const content = prompt[0]!.content;
  return typeof content === 'string' ? '' : content.length > 1 && content[0]!.type === 'text' ? content[0]!.text : '';
};

describe('announceDeferredTools', () => {
  it('names the deferred tools not loaded yet, for each pool and each loaded set (a load, a new pool)', () => {
    const pool = [tool('Read'), tool('ToolSearch'), tool('mcp__a__one', { isMcp: true }), tool('mcp__a__two', { isMcp: true })];
    const first = announced(fakeRuntime(pool));
    expect(first).toContain('mcp__a__one');
    expect(first).toContain('mcp__a__two');
    expect(announced(fakeRuntime(pool))).toBe(first); // the same pool, the same words
    const afterLoad = announced(fakeRuntime(pool, new Set(['mcp__a__one'])));
    expect(afterLoad).not.toContain('mcp__a__one');
    expect(afterLoad).toContain('mcp__a__two');
    expect(announced(fakeRuntime(pool, new Set(['mcp__a__one', 'mcp__a__two'])))).toBe(''); // nothing left to announce
    const grown = [...pool, tool('mcp__b__three', { isMcp: true })];
    expect(announced(fakeRuntime(grown))).toContain('mcp__b__three');
  });
});
