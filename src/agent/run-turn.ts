/**
 * One turn of the agent loop, both steps: the model step and the tool step that answers its tool_use blocks
 * (query.ts runs the turns; loop-steps.ts says how each step runs).
 */
import { journaledEvent, journalModelStep, journalToolStep, replayModelStep, type LoopSteps } from './loop-steps.js';
import { modelStep, type ModelRequest, type ModelStepResult } from './model-step.js';
import { startToolStep, type ToolStepResult } from './tool-step.js';
import type { AssistantMessage, MessageParam, ToolUseBlock } from '../tool/tool.js';
import type { QueryEvent, Usage } from './types.js';
import type { QueryOptions } from './query-options.js';

export interface TurnResult {
  readonly model: ModelStepResult;
  readonly tools: ToolStepResult;
}

/**
 * One turn, both steps. In this process tool_use blocks go to the tool step while the model step is still streaming;
 * journaled, the model step is one unit and its tools start after it (each step's result stored as JSON).
 */
export async function runQueryTurn(
  options: Pick<QueryOptions, 'client' | 'retry' | 'runtime' | 'streamEvents'>,
  steps: LoopSteps,
  turn: string,
  request: ModelRequest,
  history: readonly MessageParam[],
  emit: (event: QueryEvent) => void,
  signal: AbortSignal | undefined,
  affordable?: (usage: Usage) => boolean,
): Promise<TurnResult> {
  const { client, retry, runtime, streamEvents } = options;
  if (steps.overlap) {
    const tools = startToolStep(runtime, emit, signal, history);
    let held = 0;
    const onToolUse = (block: ToolUseBlock, assistant: AssistantMessage, usage: Usage) => (affordable && !affordable(usage) ? held++ : tools.add(block, assistant));
    const model = await modelStep({ client, request, signal, retry, onToolUse, emit, streamEvents });
    // The budget was spent before any call started: none runs, and the turn ends there (the loop's budget check).
    if (held > 0 && held === model.handedOver) return { model, tools: { outcomes: [] } };
    return { model, tools: await tools.settle(model) };
  }
  const model = replayModelStep(await journaled(steps, `model ${turn}`, emit, async (record) => journalModelStep(await modelStep({ client, request, signal, retry, emit: record, streamEvents }))));
  if (model.toolUses.length === 0 || (affordable && !affordable(model.usage))) return { model, tools: { outcomes: [] } };
  const tools = await journaled(steps, `tools ${turn}`, emit, async (record) => {
    const step = startToolStep(runtime, record, signal, history);
    for (const block of model.toolUses) if (!model.rejected.has(block.id)) step.add(block, model.assistant);
    return journalToolStep(await step.settle(model));
  });
  return { model, tools };
}

/**
 * A journaled step with the events it emits that a face shows (loop-steps.ts `journaledEvent`): live the first time,
 * kept in the journal with its result, and emitted from there when a replay takes the step from the journal instead
 * of running it — so a session taken over by another worker still tells everything it did.
 */
async function journaled<T>(steps: LoopSteps, name: string, emit: (event: QueryEvent) => void, run: (record: (event: QueryEvent) => void) => Promise<T>): Promise<T> {
  let ran = false;
  const { value, events } = await steps.step(name, async () => {
    ran = true;
    const kept: QueryEvent[] = [];
    const value = await run((event) => {
      const plain = journaledEvent(event);
      if (plain) kept.push(plain);
      emit(event);
    });
    return { value, events: kept };
  });
  if (!ran) for (const event of events) emit(event);
  return value;
}
