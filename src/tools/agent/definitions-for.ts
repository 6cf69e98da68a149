/**
 * Which agent definitions a session has, apart from the Agent tool itself: the runtime asks it (to list agents, to
 * check a mode) in every session, and importing the tool for it would load the Agent tool into every command.
 */
import type { PromptOptions } from '../../tool/tool.js';
import type { ToolServices, ToolUseContext } from '../../tool/tool-use-context.js';
import { BUILT_IN_AGENTS, loadAgentDefinitions, type AgentDefinition } from './agent-definitions.js';
import { agentPrompt } from './prompt.js';

const definitionsCache = new Map<string, readonly AgentDefinition[]>();

/** Agent definitions a program gave one session (the Agent SDK face's `agents`, `settingSources`). */
export interface SessionAgentDefinitions {
  /** They win over built-in and file definitions of the same name. */
  readonly definitions: readonly AgentDefinition[];
  /** `false`: no `.claude/agents` folder is read for this session (built-ins and `definitions` only). */
  readonly readFiles?: boolean;
}

declare module '../../tool/tool-use-context.js' {
  interface ToolServices {
    /** This session's own agent definitions, beside the built-in and file ones. */
    readonly agentDefinitions?: SessionAgentDefinitions;
  }
}

/**
 * The definitions for a session: built-ins, the project's and user's files (read once per project and home folder;
 * `reloadAgentDefinitions` forgets them), then the session's own.
 */
export function agentDefinitionsFor(context: Pick<ToolUseContext, 'getAppState'> & { readonly services?: ToolServices }): readonly AgentDefinition[] {
  const own = context.services?.agentDefinitions;
  let agents: readonly AgentDefinition[] = BUILT_IN_AGENTS;
  if (own?.readFiles !== false) {
    const { projectDir, homeDir } = context.getAppState().toolPermissionContext;
    const key = `${projectDir}\u0000${homeDir ?? ''}`;
    const cached = definitionsCache.get(key) ?? loadAgentDefinitions(projectDir, homeDir).agents;
    definitionsCache.set(key, cached);
    agents = cached;
  }
  if (!own || own.definitions.length === 0) return agents;
  const byName = new Map(agents.map((d) => [d.agentType, d] as const));
  for (const d of own.definitions) byName.set(d.agentType, d);
  return [...byName.values()];
}

export function reloadAgentDefinitions(): void {
  definitionsCache.clear();
}

/**
 * The Agent tool's description: its agent list is the session's. Here rather than in the tool's module, so that a
 * session's first request describes the tool without loading it (registry/base-tools.ts).
 */
export function agentToolPrompt(options: PromptOptions): string {
  return agentPrompt(agentDefinitionsFor({ getAppState: () => ({ toolPermissionContext: options.getToolPermissionContext(), cwd: '' }), services: options.services }));
}
