import type { AgentDefinition } from './agent-definitions.js';

export const AGENT_TOOL_NAME = 'Agent';

export function agentPrompt(agents: readonly AgentDefinition[]): string {
  const list = agents.map((a) => `- ${a.agentType}: ${a.description}${a.tools ? ` (tools: ${a.tools.join(', ')})` : ''}`);
  return [
    'Starts a sub-agent: a separate agent with its own context that works on one task with its own tools and returns',
    'a single final report. Use it for open-ended searches, for work that would fill your context with material you',
    'do not need afterwards, and to run independent tasks in parallel (several Agent calls in one message).',
    '',
    'Agent types (`subagent_type`, default general-purpose):',
    ...list,
    '',
    'The sub-agent does not see this conversation: `prompt` must say everything it needs — the goal, what is known,',
    'what to return. Give a 3-5 word `description`. Its report comes back to you only; tell the person what matters.',
    'Set `run_in_background` when you do not need the result to continue: you will be notified when it finishes, with',
    'its report; TaskOutput shows its progress and TaskStop stops it. A background agent has fewer tools (no Agent, no',
    'tools that need the person) and cannot ask for permission: calls that would need approval are denied and reported.',
  ].join('\n');
}
