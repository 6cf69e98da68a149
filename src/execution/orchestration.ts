/**
 * Running the tool calls of a complete (non-streamed) assistant message. `partitionToolCalls()` groups consecutive
 * concurrency-safe calls into one batch and gives every other call a batch of its own — the plan. `runTools()` runs
 * it with exactly the StreamingToolExecutor's semantics (same admission rule, ceiling, ordering, context modifiers,
 * sibling abort and interrupts) by feeding every block to one executor at once: a complete message is a stream that
 * has already ended, so there is one implementation of those rules, not two that could drift apart.
 */
import { findToolByName } from '../tool/find-tool.js';
import type { AnyTool, AssistantMessage, CanUseToolFn, ToolUseBlock, Tools } from '../tool/tool.js';
import type { ToolUseContext } from '../tool/tool-use-context.js';
import { snapshotAssistantMessage, snapshotContentBlock } from './block-snapshot.js';
import { checkInputShape } from './input-validation.js';
import { StreamingToolExecutor, type ExecutorUpdate, type StreamingToolExecutorOptions } from './streaming-tool-executor.js';

export interface ToolCallBatch {
  readonly isConcurrencySafe: boolean;
  readonly blocks: readonly ToolUseBlock[];
}

/** Whether this call may run beside others: its input must parse, and the tool must say so for that input. */
export function isToolCallConcurrencySafe(block: ToolUseBlock, tools: Tools): boolean {
  // Read once, in a try (block-snapshot.ts): a block that cannot run only produces an error result.
  const snapshot = snapshotContentBlock(block);
  if (snapshot.kind !== 'tool_use' || snapshot.problem !== undefined) return true;
  const { name, input } = snapshot.block;
  const tool: AnyTool | undefined = typeof name === 'string' ? findToolByName(tools, name) : undefined;
  if (!tool) return true; // only produces an error result
  if (checkInputShape(input) !== undefined) return false;
  try {
    const parsed = tool.inputSchema.safeParse(input);
    return parsed.success && Boolean(tool.isConcurrencySafe(parsed.data));
  } catch {
    return false;
  }
}

export function partitionToolCalls(blocks: readonly ToolUseBlock[], tools: Tools): ToolCallBatch[] {
  const batches: { isConcurrencySafe: boolean; blocks: ToolUseBlock[] }[] = [];
  for (const block of blocks) {
    const safe = isToolCallConcurrencySafe(block, tools);
    const last = batches.at(-1);
    if (safe && last?.isConcurrencySafe) last.blocks.push(block);
    else batches.push({ isConcurrencySafe: safe, blocks: [block] });
  }
  return batches;
}

/** Runs every tool_use block of `assistantMessage` (or the blocks given); yields progress and results in call order. */
export async function* runTools(
  blocks: readonly ToolUseBlock[],
  assistantMessage: AssistantMessage,
  canUseTool: CanUseToolFn,
  context: ToolUseContext,
  options: StreamingToolExecutorOptions & { readonly tools?: Tools } = {},
): AsyncGenerator<ExecutorUpdate, ToolUseContext> {
  // Every block read before any starts: one that cannot be answered throws ToolUseBlockError with nothing running.
  const plain = snapshotAssistantMessage(blocks, 'the list of tool_use blocks').message.content as ToolUseBlock[];
  const executor = new StreamingToolExecutor(options.tools ?? context.options.tools, canUseTool, context, options);
  for (const block of plain) executor.addTool(block, assistantMessage);
  yield* executor.getRemainingResults();
  return executor.getUpdatedContext();
}

/** The tool_use blocks of an assistant message, in order. */
export function toolUseBlocksOf(message: AssistantMessage): ToolUseBlock[] {
  // Plain copies; text, thinking and server-tool blocks left out; ToolUseBlockError for what cannot be answered.
  return snapshotAssistantMessage(message).message.content as ToolUseBlock[];
}
