/**
 * The session's own slash commands: /help, /clear, /compact, /resume, /cost, /context, /model, /permissions, /mcp,
 * /agents, /skills, /plugin (/exit is the session's). Custom commands and skills are run by the session itself.
 */
import path from 'node:path';
import type { SlashCommandInfo } from '../agent/slash-commands.js';
import type { AgentDefinition } from '../agent/types.js';
import type { McpServerStatus } from '../mcp/manager.js';
import { formatPermissionRule } from '../permissions/permission-rule.js';
import type { ContextUsage } from '../session/index.js';
import { resolveModel } from '../tool/models.js';
import type { PermissionRule, ToolPermissionContext } from '../tool/permission-types.js';
import { drawConversation } from './draw-conversation.js';
import { addRuleCommand, removeRuleCommand } from './permission-commands.js';
import { pluginCommand } from './plugin-command.js';
import { rewindCommand } from './rewind-command.js';
import type { TerminalSession } from './session.js';
import type { MenuCommand } from './session-store.js';

/** The session's commands, as the `/` menu and /help list them. */
export const SESSION_COMMANDS: readonly MenuCommand[] = [
  { name: 'help', description: 'the commands and keys' },
  { name: 'clear', description: 'a fresh conversation (new transcript) and a clear screen' },
  { name: 'compact', argumentHint: '[what to keep]', description: 'summarise the conversation and go on from the summary' },
  { name: 'resume', argumentHint: '[id]', description: "go on with another of this folder's sessions" },
  { name: 'rewind', argumentHint: '[N] [code|conversation|both]', description: 'back to before a message: the files, the conversation, or both' },
  { name: 'cost', description: 'what this session has cost so far' },
  { name: 'context', description: 'what the context holds, by part' },
  { name: 'model', argumentHint: '[name]', description: 'show or change the model (sonnet, opus, haiku, or an id)' },
  { name: 'permissions', argumentHint: '[add|remove …]', description: 'the rules in effect; add or remove one' },
  { name: 'mcp', argumentHint: '[login|logout NAME]', description: 'MCP servers and their state' },
  { name: 'agents', description: 'the sub-agent types the Agent tool can start' },
  { name: 'skills', description: 'the skills and custom commands of this session' },
  { name: 'plugin', argumentHint: '[install PLUGIN@MARKETPLACE]', description: 'the plugins of this session and what each added; install one' },
  { name: 'exit', description: 'leave' },
];

export const HELP_TEXT = [
  'Type a request and press Enter. Alt+Enter or a trailing \\ adds a line; pasted text keeps its lines.',
  'Typed while a turn runs, a message waits and is sent when the turn ends.',
  '',
  ...SESSION_COMMANDS.map((c) => `  /${`${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}`.padEnd(28)}${c.description}`),
  '',
  '  Esc            interrupt the running turn (tools that must finish, finish); queued messages come back',
  '  Esc Esc        when idle: /rewind (back to before a message)',
  '  Ctrl+C         interrupt; on a prompt with text, clear it; on an empty prompt, twice to exit',
  '  Ctrl+D on an empty prompt   exit',
  '  Ctrl+B         move the running Bash commands to the background',
  '  Shift+Tab      cycle the permission mode',
  '  ↑/↓            prompt history; Tab completes a / command',
].join('\n');

/** Runs one of the session's commands; false when `name` is not one (a custom command, or unknown). */
export function runSessionCommand(terminal: TerminalSession, name: string, args: readonly string[], line: string): boolean {
  const { store, session } = terminal;
  switch (name) {
    case 'help':
      // The session's own commands, then the custom commands and skills a person can type.
      terminal.track(async () => {
        const typed = (await session.commands()).filter((c) => c.userInvocable);
        store.notice(typed.length === 0 ? HELP_TEXT : `${HELP_TEXT}\n\n${describeCommands(typed)}`);
      });
      return true;
    case 'clear':
      if (terminal.busy) terminal.interrupt();
      terminal.track(async () => {
        await terminal.turnEnded();
        // A new session: its own transcript; the old one stays whole (and can be resumed).
        const id = await session.clear();
        store.clear();
        store.notice(`Conversation cleared (new session ${id}).`);
      });
      return true;
    case 'compact':
      compact(terminal, line.replace(/^\/compact\s*/, ''));
      return true;
    case 'resume':
      resume(terminal, args[0]);
      return true;
    case 'rewind':
      rewindCommand(terminal, args);
      return true;
    case 'cost':
      store.notice(describeCost(terminal));
      return true;
    case 'context':
      terminal.track(async () => store.notice(describeContext(await session.contextUsage())));
      return true;
    case 'model':
      if (args[0]) {
        const model = resolveModel(args[0]);
        session.setModel(model);
        store.setModel(model);
        store.notice(`Model: ${model}${model !== args[0] ? ` (${args[0]})` : ''}, from the next turn.`);
      } else store.notice(`Model: ${session.model}`);
      return true;
    case 'permissions':
      if (args[0] === 'add') addRuleCommand(terminal, line.replace(/^\/permissions\s+add\s*/, ''));
      else if (args[0] === 'remove') removeRuleCommand(terminal, line.replace(/^\/permissions\s+remove\s*/, ''));
      else store.notice(`${describeRules(session.permissions())}\n\n/permissions add allow|ask|deny RULE [local|project|user] — default local\n/permissions remove RULE`);
      return true;
    case 'mcp':
      terminal.track(() => mcpCommand(terminal, args));
      return true;
    case 'agents':
      terminal.track(async () => store.notice(describeAgents(await session.agents(), session.cwd)));
      return true;
    case 'skills':
      terminal.track(async () => store.notice(describeCommands(await session.commands())));
      return true;
    case 'plugin':
    case 'plugins':
      terminal.track(() => pluginCommand(terminal, args));
      return true;
    default:
      return false;
  }
}

function compact(terminal: TerminalSession, instructions: string): void {
  const { store, session } = terminal;
  if (terminal.busy) return store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
  terminal.track(async () => {
    store.notice('Compacting the conversation…');
    const result = await session.compact(instructions.trim() || undefined);
    for (const notice of result.notices) store.notice(notice, 'warn');
    terminal.totals.costUsd += result.costUsd;
    store.clear();
    store.notice(`Conversation compacted. Summary:\n${result.summary}`);
  });
}

function resume(terminal: TerminalSession, wanted: string | undefined): void {
  const { store, session } = terminal;
  if (terminal.busy) return store.notice('A turn is running: wait for it, or press Esc to interrupt it.', 'warn');
  terminal.track(async () => {
    const sessions = await session.otherSessions();
    if (sessions.length === 0) return store.notice(`No other session in ${session.cwd} to resume.`);
    let id = wanted;
    if (id === undefined) {
      const question = 'Resume which session?';
      const shown = sessions.slice(0, 9);
      const labels = shown.map((s) => `${s.id.slice(0, 8)} · ${new Date(s.modifiedMs).toLocaleString()} · ${s.messages} messages`);
      const answer = await store.askQuestion({
        kind: 'choice',
        questions: [{ question, header: 'Sessions', options: shown.map((s, i) => ({ label: labels[i]!, description: s.firstPrompt || '(no prompt)' })) }],
        signal: new AbortController().signal,
      });
      if (answer.action !== 'accept') return store.notice('Not resumed.');
      const picked = answer.answers?.[question] ?? '';
      id = shown[labels.indexOf(picked)]?.id ?? picked.trim();
    }
    const found = sessions.find((s) => s.id === id) ?? sessions.find((s) => id !== undefined && id !== '' && s.id.startsWith(id));
    if (!found) return store.notice(`No session ${JSON.stringify(id)} in ${session.cwd}.`, 'warn');
    // From now on the session goes on with that one: its transcript, its conversation.
    const messages = await session.resume(found.id);
    store.clear();
    drawConversation(store, messages, (n) => session.findTool(n));
    store.notice(`Resumed session ${found.id} (${messages.length} messages).`);
  });
}

function describeCost(terminal: TerminalSession): string {
  const { costUsd, usage, turns, durationMs } = terminal.totals;
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    `Total cost:      $${costUsd.toFixed(4)}`,
    `Model time:      ${(durationMs / 1000).toFixed(1)}s over ${turns} model ${turns === 1 ? 'turn' : 'turns'}`,
    `Tokens:          ${n(usage.input_tokens)} in, ${n(usage.output_tokens)} out, ${n(usage.cache_read_input_tokens)} cache read, ${n(usage.cache_creation_input_tokens)} cache written`,
  ].join('\n');
}

const fmt = (tokens: number) => (tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens));

/** `/context`: the parts of the next request and about how many tokens each takes (4 characters a token). */
export function describeContext(usage: ContextUsage): string {
  const rows: [string, number][] = [
    ['System prompt', usage.systemPrompt],
    [`Built-in tools (${usage.builtInTools.count})`, usage.builtInTools.tokens],
    [`MCP tools (${usage.mcpTools.count})`, usage.mcpTools.tokens],
    [`Messages (${usage.messages.count}): yours`, usage.messages.typed],
    ['  replies', usage.messages.replies],
    ['  tool results', usage.messages.toolResults],
  ];
  return [
    `Context of the next request, about (4 characters a token):`,
    ...rows.map(([label, t]) => `  ${label.padEnd(28)}≈ ${fmt(t)} tokens`),
    `  ${'Total'.padEnd(28)}≈ ${fmt(usage.total)} tokens`,
    ...(usage.lastRequestTokens > 0 ? [`The last request took ${usage.lastRequestTokens.toLocaleString('en-US')} input tokens (from the API).`] : []),
  ].join('\n');
}

/** `/skills`: each skill and custom command with where it comes from and what it does. */
export function describeCommands(all: readonly SlashCommandInfo[]): string {
  if (all.length === 0) return 'No skills or custom commands (.claude/skills/<name>/SKILL.md, .claude/commands/*.md).';
  const sections: string[] = [];
  for (const kind of ['skill', 'command'] as const) {
    const some = all.filter((c) => c.kind === kind);
    if (some.length === 0) continue;
    const lines = some.map((c) => {
      const flags = [c.source, c.userInvocable ? '' : 'model only', c.modelInvocable ? '' : 'user only'].filter(Boolean).join(', ');
      return `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  (${flags})${c.description ? ` — ${c.description}` : ''}`;
    });
    sections.push([kind === 'skill' ? 'Skills:' : 'Custom commands:', ...lines].join('\n'));
  }
  return sections.join('\n\n');
}

/** `/permissions`: the mode, then allow / ask / deny rules, each with the file it was read from. */
export function describeRules(ctx: ToolPermissionContext): string {
  const lines = [`Mode: ${ctx.mode}`];
  const group = (title: string, rules: readonly PermissionRule[]) => {
    lines.push('', `${title}:`);
    if (rules.length === 0) lines.push('  (none)');
    for (const rule of rules) {
      const from = rule.sourceFile && rule.sourceFile !== rule.source ? `${rule.source}, ${rule.sourceFile}` : rule.source;
      lines.push(`  ${formatPermissionRule(rule.ruleValue)}  (${from})`);
    }
  };
  group('Allow', ctx.alwaysAllowRules as readonly PermissionRule[]);
  group('Ask', ctx.alwaysAskRules as readonly PermissionRule[]);
  group('Deny', ctx.alwaysDenyRules as readonly PermissionRule[]);
  return lines.join('\n');
}

/** `/agents`: the agent types the Agent tool can start, where each is defined, and where to add one. */
function describeAgents(agents: readonly AgentDefinition[], cwd: string): string {
  const lines = ['Agent types:'];
  for (const a of agents) {
    const extra = [a.source, a.model ? `model ${a.model}` : '', a.tools ? `tools ${a.tools.join(', ')}` : ''].filter(Boolean).join(', ');
    lines.push(`  ${a.agentType}  (${extra}) — ${a.description.split('\n')[0]}`);
  }
  lines.push('', `Add one as Markdown with frontmatter in ${path.join(cwd, '.claude', 'agents')}/<name>.md (or ~/.claude/agents/).`);
  return lines.join('\n');
}

const MCP_STATE: Record<McpServerStatus['state'], string> = {
  connected: 'connected',
  failed: 'failed',
  'needs-login': 'needs login',
  'pending-approval': 'needs approval',
  rejected: 'disabled',
  'not-started': 'not started',
};

/** `/mcp`: one line per server, its state and login, the error when it has one. */
export function describeMcp(status: readonly McpServerStatus[]): string {
  if (status.length === 0) return 'No MCP servers configured.';
  const lines = status.map((s) => {
    const login = s.oauth ? (s.oauth.loggedIn ? ', OAuth: logged in' : '') : '';
    const error = s.error ? `\n    ${s.error.split('\n')[0]}` : '';
    return `  ${s.name} [${s.scope}, ${s.type}] — ${MCP_STATE[s.state]}${login}${s.tools.length > 0 ? `, ${s.tools.length} tools` : ''}${error}`;
  });
  return ['MCP servers:', ...lines, '', '/mcp login NAME to log in to a server that asks for OAuth, /mcp logout NAME to forget it.'].join('\n');
}

/** `/mcp`: the servers and their state; `/mcp login NAME` (URL shown, browser opened when there is one); `/mcp logout NAME`. */
async function mcpCommand(terminal: TerminalSession, args: readonly string[]): Promise<void> {
  const { store, session } = terminal;
  const [verb, name] = args;
  if (verb === undefined) {
    const servers = await session.mcp.servers();
    store.notice(servers === undefined ? 'No MCP servers configured (.mcp.json, ~/.claude.json, settings mcpServers, --mcp-config).' : describeMcp(servers));
  } else if ((verb === 'login' || verb === 'logout') && name) {
    let done: string;
    if (verb === 'logout') {
      done = (await session.mcp.logout(name)) ? `Logged out of MCP server "${name}".` : `MCP server "${name}" had no stored login.`;
    } else {
      store.notice(`Logging in to MCP server "${name}"…`);
      const result = await session.mcp.login(name, (url) => store.notice(`Open this URL in a browser to log in to "${name}" (opened for you when there is a desktop):\n  ${url}`));
      done = result.status === 'not-required' ? `MCP server "${name}" did not ask for a login.` : `Logged in to MCP server "${name}" (${result.tools} tools).`;
    }
    store.notice(done);
  } else {
    store.notice('Usage: /mcp, /mcp login NAME, /mcp logout NAME', 'warn');
  }
}
