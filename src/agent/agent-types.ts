/**
 * The agent types a session can run as (`agent`) or start with the Agent tool: the built-in ones, then those of
 * `~/.claude/agents` and `<project>/.claude/agents`, then the session's own; a later definition of a name wins. The
 * one reading of them is the Agent tool's (`agentDefinitionsFor`); this asks it before a runtime exists.
 */
import type { AppState } from '../tool/tool-use-context.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';
import { agentDefinitionsFor } from '../tools/agent/definitions-for.js';
import type { AgentDefinition } from '../tools/agent/agent-definitions.js';

export function agentTypesFor(projectDir: string, homeDir: string, own: readonly AgentDefinition[] = [], readFiles = true): readonly AgentDefinition[] {
  const state = { toolPermissionContext: { projectDir, homeDir } as ToolPermissionContext } as AppState;
  return agentDefinitionsFor({ getAppState: () => state, services: { agentDefinitions: { definitions: own, readFiles } } });
}
