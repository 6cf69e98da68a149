import { readFileSync } from 'node:fs';
import v8 from 'node:v8';
import vm from 'node:vm';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageParam, ToolResultBlockParam } from '../tool/tool.js';
import { makeTestTool } from '../../test/helpers/tools.js';
import { allowAll, assistantMessage, makeContext, tempSession, textOf, toolUse, type TempSession } from '../../test/helpers/execution.js';
import { persistedOutputText, ToolResultBudget, toolResultPath } from './budget.js';
import { runToolUse } from './pipeline.js';

let session: TempSession;
beforeEach(() => {
  session = tempSession();
});
afterEach(() => session.cleanup());

const result = (id: string, chars: number): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content: `${id}:`.padEnd(chars, 'x') });

/** A real full GC (vitest does not pass --expose-gc): heap figures without garbage still waiting to be collected. */
function gc(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

describe('ToolResultBudget memory over a long conversation', () => {
  it('keeps no block it can never replace and a bounded number of the others; the heap stays flat over 10,000 calls', async () => {
    const budget = new ToolResultBudget();
    let heapAt2000 = 0;
    for (let i = 0; i < 10_000; i++) {
      const id = `call_${i}`;
      // Every tenth result is large enough to be replaced; the others are counted only.
      const block = result(id, i % 10 === 0 ? 3_000 : 1_500);
      budget.record({ toolUseId: id, toolName: 'Bash', block, replaceable: true });
      await budget.enforce(session.dir, new Set([id]));
      expect(budget.retainedBlocks).toBeLessThanOrEqual(budget.budgetChars / 2_000 + 1);
      if (i === 1_999) {
        gc();
        heapAt2000 = process.memoryUsage().heapUsed;
      }
    }
    gc();
    const growth = process.memoryUsage().heapUsed - heapAt2000;
    // Keeping every block would hold ~13 MB of text for the last 8,000 calls; a generous margin for everything else.
    expect(growth).toBeLessThan(3 * 1024 * 1024);
    expect(budget.retainedBlocks).toBe(0);
  }, 120_000);

  it('rebuilds a preview that fell out of its cache byte for byte from the saved file', async () => {
    const budget = new ToolResultBudget({ budgetChars: 2_500 });
    for (let i = 0; i < 100; i++) {
      budget.record({ toolUseId: `r${i}`, toolName: 'Bash', block: result(`r${i}`, 3_000), replaceable: true });
      await budget.enforce(session.dir, new Set([`r${i}`]));
    }
    const file = toolResultPath(session.dir, 'r0');
    expect(budget.replacementFor('r0')).toBe(persistedOutputText(readFileSync(file, 'utf8'), file, 'conversation tool-result budget exceeded'));
    expect(budget.replacementFor('r99')).toBeUndefined();
  });
});

describe('ToolResultBudget (per conversation)', () => {
  it('adds up results and, past the budget, replaces the largest older ones by persisted previews', async () => {
    const budget = new ToolResultBudget({ budgetChars: 21_000 });
    budget.record({ toolUseId: 'small', toolName: 'Bash', block: result('small', 3_000), replaceable: true });
    budget.record({ toolUseId: 'big', toolName: 'Bash', block: result('big', 12_000), replaceable: true });
    budget.record({ toolUseId: 'mid', toolName: 'Bash', block: result('mid', 6_000), replaceable: true });
    budget.record({ toolUseId: 'new', toolName: 'Bash', block: result('new', 9_000), replaceable: true });
    expect(budget.totalChars).toBe(30_000);
    const replaced = await budget.enforce(session.dir, new Set(['new']));
    expect(replaced).toEqual(['big']);
    expect(budget.totalChars).toBeLessThanOrEqual(21_000);
    expect(readFileSync(toolResultPath(session.dir, 'big'), 'utf8')).toBe(result('big', 12_000).content);
    expect(textOf(budget.replacementFor('big'))).toContain('<persisted-output>');
    expect(budget.replacementFor('mid')).toBeUndefined();
  });

  it('never replaces results that must not be persisted (Read) nor the protected current one', async () => {
    const budget = new ToolResultBudget({ budgetChars: 1_000 });
    budget.record({ toolUseId: 'read', toolName: 'Read', block: result('read', 50_000), replaceable: false });
    budget.record({ toolUseId: 'cur', toolName: 'Bash', block: result('cur', 5_000), replaceable: true });
    expect(await budget.enforce(session.dir, new Set(['cur']))).toEqual([]);
  });

  it('applies replacements to a history without touching other messages', async () => {
    const budget = new ToolResultBudget({ budgetChars: 5_000 });
    const a = result('a', 8_000);
    const b = result('b', 1_000);
    budget.record({ toolUseId: 'a', toolName: 'Bash', block: a, replaceable: true });
    budget.record({ toolUseId: 'b', toolName: 'Bash', block: b, replaceable: true });
    await budget.enforce(session.dir);
    const history: MessageParam[] = [
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: [a, b] },
      { role: 'user', content: 'plain' },
    ];
    const applied = budget.applyToMessages(history);
    expect(applied[0]).toBe(history[0]);
    expect(applied[2]).toBe(history[2]);
    const parts = applied[1]!.content as ToolResultBlockParam[];
    expect(textOf(parts[0]!.content)).toContain('conversation tool-result budget exceeded');
    expect(parts[1]).toBe(b);
  });

  it('clone() gives a sub-agent the parent’s record, which then diverges', () => {
    const parent = new ToolResultBudget({ budgetChars: 10_000 });
    parent.record({ toolUseId: 'p', toolName: 'Bash', block: result('p', 4_000), replaceable: true });
    const child = parent.clone();
    child.record({ toolUseId: 'c', toolName: 'Bash', block: result('c', 4_000), replaceable: true });
    expect(child.totalChars).toBe(8_000);
    expect(parent.totalChars).toBe(4_000);
    expect(child.budgetChars).toBe(10_000);
  });

  it('is fed by the pipeline, which protects the result it just produced', async () => {
    const budget = new ToolResultBudget({ budgetChars: 5_000 });
    const tool = makeTestTool('Dump', { call: async (input) => ({ data: 'y'.repeat(Number(input.value)) }) });
    const context = makeContext([tool], session.dir, { contentReplacementState: budget });
    await runToolUse(toolUse('Dump', { value: '4000' }, 'first'), assistantMessage, allowAll, context);
    await runToolUse(toolUse('Dump', { value: '3000' }, 'second'), assistantMessage, allowAll, context);
    expect(budget.replacementFor('first')).toBeDefined();
    expect(budget.replacementFor('second')).toBeUndefined();
  });
});

describe('persisted output', () => {
  it('hashes ids that are not safe file names', () => {
    const file = toolResultPath('/s', '../../etc/passwd');
    expect(path.dirname(file)).toBe(path.join('/s', 'tool-results'));
    expect(path.basename(file)).toMatch(/^id-[0-9a-f]{32}\.txt$/);
  });

  it('ends the preview on a line boundary and says how much is left', () => {
    const text = Array.from({ length: 500 }, (_, i) => `row ${i}`).join('\n');
    const out = persistedOutputText(text, '/s/x.txt', 'limit 100');
    const preview = out.split('Preview (first ')[1]!;
    expect(preview).toMatch(/row \d+\n\.\.\. \([\d,]+ more characters in the file\)\n<\/persisted-output>$/);
  });
});
