/**
 * Step 5 of the pipeline, the seeds' speculative classifier start: in auto mode a shell call's classification starts
 * as soon as its input is valid, in parallel with backfill, PreToolUse hooks and the rest of validation, so a call
 * that does reach the classifier waits less. Shell calls are recognised by their trait (`kind: 'shell'`), never by name.
 *
 * Only what would ask is classified: the engine's own chain is run first, without hooks (a rule that allows, a
 * read-only command or a deny rule needs no classifier, and starting one for every `ls` would spend tokens for
 * nothing). The verdict is used only if the engine reaches the classifier step for the same call with the same
 * description (`take`); otherwise it is aborted (`discard`) — when the engine decided without it, or the call ended
 * before the permission step. A classification that had already finished when it was discarded reports its tokens, so
 * they still count.
 */
import type { ClassifierTrace } from '../tool/permission-types.js';
import type { AnyTool } from '../tool/tool.js';
import { createChildAbortController, type ToolUseContext } from '../tool/tool-use-context.js';
import {
  classifierEligibility,
  DEFAULT_DENIAL_LIMITS,
  normalizeVerdict,
  pauseReason,
  type AutoModeOptions,
  type ClassifierVerdict,
} from './auto-mode.js';
import { classifierInputOf, classifierTranscript } from './classifier-transcript.js';
import { hasPermissionsToUseTool } from './resolve.js';
import { isShellTool } from './tool-traits.js';

/** An early classification handed over to the engine; `undefined` verdict: there was nothing to judge after all. */
export interface EarlyClassification {
  readonly verdict: Promise<ClassifierVerdict | undefined>;
  abort(): void;
}

export interface SpeculativeClassifier {
  /** Pipeline step 5. Returns the function that ends it unless the engine took it (safe to call more than once). */
  start(tool: AnyTool, input: Record<string, unknown>, context: ToolUseContext): (() => void) | undefined;
  /** The early classification of this call, if one runs for the same description; the caller owns it from then on. */
  take(toolUseId: string, classifierInput: string): EarlyClassification | undefined;
  /** Not needed: aborted, or, when it had already finished, its tokens reported as an `unused` classification. */
  discard(toolUseId: string): ClassifierTrace | undefined;
  /** Classifications started and neither taken nor discarded yet. */
  readonly pending: number;
}

interface Entry {
  readonly classifierInput: string;
  readonly controller: AbortController;
  verdict: Promise<ClassifierVerdict | undefined>;
  done?: ClassifierVerdict;
}

export function createSpeculativeClassifier(options: Pick<AutoModeOptions, 'classifier' | 'denialLimits'>): SpeculativeClassifier {
  const entries = new Map<string, Entry>();
  const limits = options.denialLimits ?? DEFAULT_DENIAL_LIMITS;

  const discard = (toolUseId: string): ClassifierTrace | undefined => {
    const entry = entries.get(toolUseId);
    if (entry === undefined) return undefined;
    entries.delete(toolUseId);
    const done = entry.done;
    // Aborting a finished request is harmless, and it drops the link to the call's signal.
    entry.controller.abort('the engine decided without the classifier');
    if (done === undefined) return undefined;
    return {
      outcome: 'unused',
      reason: `a speculative classification (${done.behavior}) was not needed: the engine decided without it`,
      speculative: true,
      ...(done.stage !== undefined ? { stage: done.stage } : {}),
      ...(done.models !== undefined ? { models: done.models } : {}),
      ...(done.usage !== undefined ? { usage: done.usage } : {}),
      ...(done.costUsd !== undefined ? { costUsd: done.costUsd } : {}),
    };
  };

  return {
    start(tool, input, context) {
      const classifier = options.classifier;
      const toolUseId = context.toolUseId;
      if (classifier === undefined || toolUseId === undefined || !isShellTool(tool)) return undefined;
      if (context.getAppState().toolPermissionContext.mode !== 'auto') return undefined;
      if (pauseReason(context.localDenialTracking, limits) !== undefined) return undefined;
      const classifierInput = classifierInputOf(tool, input);
      if (classifierInput === '') return undefined;
      discard(toolUseId); // a repeated id: the older one is not needed
      const controller = createChildAbortController(context.abortController);
      const entry: Entry = { classifierInput, controller, verdict: Promise.resolve(undefined) };
      entry.verdict = (async (): Promise<ClassifierVerdict | undefined> => {
        let ask;
        try {
          // The engine's chain without hooks: does this call ask, and is it the classifier's to judge?
          const decision = await hasPermissionsToUseTool(tool, input, context);
          if (decision.behavior !== 'ask' || controller.signal.aborted) return undefined;
          if (!classifierEligibility(decision, tool, input, { hasClassifier: true, tracking: context.localDenialTracking, limits }).consult) return undefined;
          ask = decision;
        } catch {
          return undefined; // the engine will find out for itself at step 8
        }
        try {
          const transcript = classifierTranscript(context.messages, { tools: context.options.tools, currentToolUseId: toolUseId, subagent: context.agentDepth > 0 });
          const verdict = normalizeVerdict(
            await classifier({ tool, input, classifierInput, ask, transcript, toolUseID: toolUseId, context, signal: controller.signal, speculative: true }),
          );
          entry.done = verdict;
          return verdict;
        } catch (error) {
          return { behavior: 'ask', reason: `the classifier failed: ${error instanceof Error ? error.message : String(error)}` };
        }
      })();
      entries.set(toolUseId, entry);
      return () => void discard(toolUseId);
    },

    take(toolUseId, classifierInput) {
      const entry = entries.get(toolUseId);
      if (entry === undefined) return undefined;
      entries.delete(toolUseId);
      const abort = () => entry.controller.abort('classifier no longer needed');
      // Hooks may have rewritten the input: a verdict about another command is worth nothing.
      if (entry.classifierInput !== classifierInput) {
        abort();
        return undefined;
      }
      return { verdict: entry.verdict, abort };
    },

    discard,

    get pending() {
      return entries.size;
    },
  };
}
