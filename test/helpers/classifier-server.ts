/**
 * One scripted Messages API server playing two models: the session's (its turns in order) and auto mode's
 * classifier (each of its requests answered by `classify`). Classifier requests are recognised by their system
 * prompt, which starts with CLASSIFIER_SYSTEM_PREFIX.
 */
import Anthropic from '@anthropic-ai/sdk';
import { CLASSIFIER_SYSTEM_PREFIX, CLASSIFIER_VERDICT_TOOL } from '../../src/agent/classifier-prompt.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scripted-server.js';
import type { RecordedRequest, ScriptedResponse, ScriptedTurn, TurnContext } from '../../src/testing/script.js';

export function isClassifierRequest(request: RecordedRequest): boolean {
  const system: unknown = request.body?.system;
  const text = typeof system === 'string' ? system : Array.isArray(system) ? system.map((b: { text?: string }) => b.text ?? '').join('') : '';
  return text.startsWith(CLASSIFIER_SYSTEM_PREFIX);
}

/** The JSON a classifier request carries (transcript, action, why_asked, cwd). */
export function classifierPayload(request: RecordedRequest): { transcript: { role: string; text?: string; from?: string; tool?: string; input?: string }[]; action: { tool: string; input: string }; why_asked: string; cwd: string } {
  const content = request.body.messages[0].content as string;
  return JSON.parse(content.split('\n\nA first, quick look was unsure:')[0]!);
}

/** An answer of text only: never a verdict (the classifier's verdict is a call of its tool). */
export function answer(text: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse {
  return { content: [{ type: 'text', text }], usage: { input_tokens: 100, output_tokens: 10 }, ...extra };
}

/** A verdict as the classifier gives it: one call of the verdict tool (`block` is a deny). */
export function verdict(decision: 'allow' | 'block' | 'unsure', reason: string, extra: Partial<ScriptedResponse> = {}): ScriptedResponse {
  return { content: [{ type: 'tool_use', name: CLASSIFIER_VERDICT_TOOL, input: { decision, reason } }], usage: { input_tokens: 100, output_tokens: 10 }, ...extra };
}

export interface ModelAndClassifier {
  readonly server: ScriptedServer;
  readonly client: Anthropic;
  /** Every classifier request, retries included, in arrival order. */
  readonly classifierRequests: RecordedRequest[];
  /** The session model's requests. */
  readonly mainRequests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startModelAndClassifier(
  main: readonly ScriptedTurn[],
  classify: (request: RecordedRequest, index: number) => ScriptedResponse | Promise<ScriptedResponse>,
): Promise<ModelAndClassifier> {
  const classifierRequests: RecordedRequest[] = [];
  const mainRequests: RecordedRequest[] = [];
  let next = 0;
  const route = async (request: RecordedRequest, context: TurnContext): Promise<ScriptedResponse> => {
    if (isClassifierRequest(request)) {
      classifierRequests.push(request);
      return classify(request, classifierRequests.length - 1);
    }
    mainRequests.push(request);
    const turn = main[next++];
    if (turn === undefined) return { content: [{ type: 'text', text: '(the script has no main turn left)' }] };
    return typeof turn === 'function' ? turn(request, context) : turn;
  };
  const server = await startScriptedServer(Array.from({ length: 400 }, () => route));
  const client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
  return { server, client, classifierRequests, mainRequests, close: () => server.close() };
}
