/**
 * Skill: progressive disclosure of skills and custom commands (Claude Code 2.1 folded its SlashCommand tool into
 * this one). The description lists each one the model may run by name and description; a call loads the full text
 * — arguments substituted, `!` lines run and `@` files read through the pipeline like any call — into the
 * conversation after the result, with a skill's base directory so its files can be read with Read. While the skill
 * is active (the rest of the agent's turn), its `allowed-tools` are an allow ceiling: they narrow what runs without
 * asking, never allow more (permissions/allow-ceiling.ts).
 *
 * The catalogue (discovery, reading, rendering) lives in the agent layer; it reaches this tool through
 * `createSkillTool(catalog)`, so nothing here imports upward. The runtime puts the tool in the pool only when the
 * session has skills or commands.
 */
import * as z from 'zod';
import { addAllowCeiling } from '../../permissions/allow-ceiling.js';
import { formatPermissionRule } from '../../permissions/permission-rule.js';
import { buildTool } from '../../tool/build-tool.js';
import type { PermissionRule } from '../../tool/permission-types.js';
import type { AnyTool, AssistantMessage, CanUseToolFn } from '../../tool/tool.js';
import type { ToolUseContext } from '../../tool/tool-use-context.js';
import { SKILL_TOOL_NAME, skillPrompt, skillResultText, type SkillListing } from './prompt.js';

export { SKILL_TOOL_NAME, type SkillListing } from './prompt.js';

export const skillInputSchema = z.strictObject({
  skill: z.string().min(1).describe('The skill or command name, without the leading slash ("pdf", "frontend:test")'),
  args: z.string().optional().describe('Arguments, as a person would type them after /name'),
});
export type SkillInput = z.infer<typeof skillInputSchema>;

/** A skill or command rendered for the conversation. */
export interface SkillInvocation {
  readonly name: string;
  readonly kind: 'skill' | 'command';
  /** The text that enters the conversation (a skill's starts with its base directory). */
  readonly content: string;
  /** `allowed-tools`, parsed: the ceiling while it is active (empty: none). */
  readonly allowedTools: readonly PermissionRule[];
  /** Rules of `allowed-tools` that could not be read (left out: the ceiling only gets narrower). */
  readonly invalidAllowedTools?: readonly string[];
}

export interface SkillInvokeRequest {
  readonly name: string;
  readonly args: string;
  /** The Skill call's context and gate: `!` lines and `@` files run through the pipeline with them. */
  readonly context: ToolUseContext;
  readonly canUseTool: CanUseToolFn;
  readonly parentMessage: AssistantMessage;
}

/** What the agent layer provides: the listing for the description, and rendering for a call. */
export interface SkillCatalog {
  /** The skills and commands the model may run (`disable-model-invocation` ones left out). */
  listForModel(): Promise<readonly SkillListing[]>;
  /** Why the model may not run this one (unknown, user-only), or undefined when it may. */
  refusal(name: string): Promise<string | undefined>;
  /** Renders one for a model call; rejects with a message for the model when it cannot be loaded. */
  invokeForModel(request: SkillInvokeRequest): Promise<SkillInvocation>;
}

export interface SkillOutput {
  readonly success: true;
  readonly commandName: string;
  readonly kind: 'skill' | 'command';
  /** `allowed-tools` as rule text (the ceiling while it is active). */
  readonly allowedTools: readonly string[];
  readonly invalidAllowedTools?: readonly string[];
}

export function createSkillTool(catalog: SkillCatalog): AnyTool {
  return buildTool<typeof skillInputSchema, SkillOutput>({
    name: SKILL_TOOL_NAME,
    asyncSafe: true,
    searchHint: 'run a skill or custom slash command',
    inputSchema: skillInputSchema,
    maxResultSizeChars: 100_000,
    alwaysLoad: true,
    // `Skill(deploy)`, `Skill(review-pr *)`: rules match the name, and the name with its arguments.
    permissionTraits: { kind: 'other', contentField: 'skill' },
    prompt: async () => skillPrompt(await catalog.listForModel()),
    // Loading instructions changes nothing; its `!` lines and `@` files are separate calls, each decided on its own.
    isReadOnly: () => true,
    // Serial: its ceiling must be in place before the calls that follow it in the same response.
    isConcurrencySafe: () => false,
    toAutoClassifierInput: (input) => `${input.skill}${input.args ? ` ${input.args}` : ''}`,
    async validateInput(input) {
      const why = await catalog.refusal(stripSlash(input.skill));
      return why === undefined ? { result: true } : { result: false, message: why, errorCode: 1 };
    },
    async call(input, context, canUseTool, parentMessage) {
      const name = stripSlash(input.skill);
      const loaded = await catalog.invokeForModel({ name, args: input.args ?? '', context, canUseTool, parentMessage });
      const rules = loaded.allowedTools;
      return {
        data: {
          success: true,
          commandName: loaded.name,
          kind: loaded.kind,
          allowedTools: rules.map((r) => formatPermissionRule(r.ruleValue)),
          ...(loaded.invalidAllowedTools?.length ? { invalidAllowedTools: loaded.invalidAllowedTools } : {}),
        },
        newMessages: [{ role: 'user', content: [{ type: 'text', text: loaded.content }] }],
        contextModifier:
          rules.length === 0 && !loaded.invalidAllowedTools?.length
            ? undefined
            : (ctx) => {
                const ceiling = { label: `${loaded.kind} "${loaded.name}"`, rules, ...(ctx.agentId !== undefined ? { agentId: ctx.agentId } : {}) };
                ctx.setAppState((prev) => ({ ...prev, toolPermissionContext: addAllowCeiling(prev.toolPermissionContext, ceiling) }));
                return ctx;
              },
      };
    },
    mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: skillResultText(data.commandName) }),
    renderToolUseMessage: (input) => `/${stripSlash(input.skill ?? '')}${input.args ? ` ${input.args}` : ''}`,
    renderToolResultMessage: (data) => `Loaded ${data.kind} ${data.commandName}${data.allowedTools.length > 0 ? ` (allowed tools: ${data.allowedTools.join(', ')})` : ''}`,
    loadViews: () => import('./render.js').then((m) => m.skillViews),
  });
}

function stripSlash(name: string): string {
  return name.startsWith('/') ? name.slice(1) : name;
}
