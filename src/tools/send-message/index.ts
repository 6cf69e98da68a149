/**
 * SendMessage: one member of the session's agent team writes to another (shared/team.ts). The sender is who the call
 * runs as — the lead (the main thread) or a teammate — never a name the model gives, and the text arrives marked as a
 * teammate's (tool/message-origin.ts). It changes nothing outside the session and grants nothing: read-only, no prompt;
 * `asyncSafe`, since teammates are background agents and this is how they talk.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import type { ValidationResult } from '../../tool/tool.js';
import { currentTeam, deliver, senderOf } from '../shared/team.js';
import { SEND_MESSAGE_TOOL_NAME, sendMessagePrompt } from './prompt.js';

export const sendMessageInputSchema = z.strictObject({
  to: z.string().min(1).describe('Recipient: a teammate\'s name, "team-lead" for the lead, or "*" for every other teammate'),
  message: z.string().min(1).describe('The message'),
  summary: z.string().optional().describe('A 5-10 word preview of the message'),
});
export type SendMessageInput = z.infer<typeof sendMessageInputSchema>;

export interface SendMessageOutput {
  readonly success: boolean;
  readonly message: string;
  readonly from: string;
  readonly recipients: readonly string[];
}

function sender(context: ToolUseContext): { ok: true; from: string } | { ok: false; error: string } {
  const team = currentTeam(context);
  if (!team) return { ok: false, error: 'There is no agent team in this session: start a teammate with the Agent tool (give it a name), or create one with TeamCreate.' };
  const from = senderOf(context, team);
  if (from === undefined) return { ok: false, error: 'Only the lead and its teammates can send team messages; this agent is neither.' };
  return { ok: true, from };
}

function validate(context: ToolUseContext): ValidationResult {
  const who = sender(context);
  return who.ok ? { result: true } : { result: false, message: who.error, errorCode: 1 };
}

export const SendMessageTool = buildTool<typeof sendMessageInputSchema, SendMessageOutput>({
  name: SEND_MESSAGE_TOOL_NAME,
  searchHint: 'message teammate agent team lead communicate',
  inputSchema: sendMessageInputSchema,
  maxResultSizeChars: 100_000,
  shouldDefer: true,
  asyncSafe: true,
  prompt: async () => sendMessagePrompt(),
  // It writes into the session's own inboxes, nowhere else.
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  toAutoClassifierInput: (input) => `to ${input.to}: ${input.summary ?? input.message.slice(0, 200)}`,
  validateInput: async (_input, context) => validate(context),
  call: async (input, context) => {
    const who = sender(context);
    if (!who.ok) throw new Error(who.error);
    const delivery = deliver(currentTeam(context)!, who.from, input.to, input.message, input.summary);
    if (!delivery.ok) throw new Error(delivery.error);
    const to = delivery.recipients.map((r) => `"${r}"`).join(', ');
    return { data: { success: true, message: `Message sent to ${to}.`, from: who.from, recipients: delivery.recipients } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: data.message }),
  renderToolUseMessage: (input) => `to ${input.to ?? ''}${input.summary ? `: ${input.summary}` : ''}`,
  renderToolResultMessage: (data) => data.message,
  loadViews: () => import('./render.js').then((m) => m.sendMessageViews),
});
