/**
 * Skills and custom slash commands in a session: one catalogue per runtime (`services.commands`), built on the
 * settings layer's discovery (command-files.ts), rendering with command-render.ts. It answers three callers:
 * - a person's `/name args` (`toolgate run -p`, the interactive session): `expandSlashCommand()` renders the user
 *   message, its `!` lines and `@` files run through `runtime.run()` — the runtime's permission handler, so headless
 *   asks are denied like any call;
 * - the model, through the Skill tool (`SkillCatalog`): the same rendering, its calls through the pipeline with the
 *   Skill call's own context and gate;
 * - listings: `listSlashCommands()`, and the init event's `slash_commands` and `skills` (`slashCommandInit()`).
 *
 * `allowed-tools` narrow the turn that runs the command or skill (an allow ceiling of the agent that runs it, see
 * permissions/allow-ceiling.ts); `endCommandTurn()` lifts the agent's ceilings when its loop ends the turn.
 */
import { resolveModel } from '../tool/models.js';
import { addAllowCeiling, removeAllowCeilings } from '../permissions/allow-ceiling.js';
import { tryParsePermissionRule } from '../permissions/permission-rule.js';
import { discoverCommandFiles, readCommandFile, type CommandFile, type CommandFileContent, type PluginCommandRoots } from '../settings/command-files.js';
import type { PermissionRule } from '../tool/permission-types.js';
import type { MessageParam, ToolUseBlock } from '../tool/tool.js';
import { createSkillTool, type SkillCatalog, type SkillInvocation, type SkillInvokeRequest, type SkillListing } from '../tools/skill/index.js';
import type { AnyTool } from '../tool/tool.js';
import { runToolUse } from '../execution/pipeline.js';
import { renderCommand, type RunCommandCall } from './command-render.js';
import type { RuntimeSettings } from './runtime-settings.js';
import type { SettingSource, ToolRuntime, ToolRuntimeOptions } from './types.js';
import { formatCommandTag } from '../tool/command-tag.js';
import { randomUUID } from '../tool/crypto.js';
import { contextOf } from './runtime-context.js';

declare module '../tool/tool-use-context.js' {
  interface ToolServices {
    /** The session's skills and custom slash commands (agent/slash-commands.ts). */
    readonly commands?: CommandCatalog;
  }
}

/** What a listing says about one skill or command. */
export interface SlashCommandInfo {
  /** What `/name` runs (`frontend:test` for `.claude/commands/frontend/test.md`). */
  readonly name: string;
  readonly kind: 'skill' | 'command';
  /** `project` or `user`, and for a command in a subfolder its folders: `project:frontend`. */
  readonly source: string;
  readonly description: string;
  readonly argumentHint?: string;
  /** A person may type it (`user-invocable`, default true). */
  readonly userInvocable: boolean;
  /** The model may run it through the Skill tool (not `disable-model-invocation`). */
  readonly modelInvocable: boolean;
  readonly file: string;
}

/** A person's `/name args`, ready for `query()`. */
export interface SlashCommandExpansion {
  readonly command: SlashCommandInfo;
  readonly args: string;
  /**
   * The user message: the command line as Claude Code tags it (tool/command-tag.ts), the rendered text, one block per
   * `@` file. Only the first block is the person's words: auto mode's classifier is shown the rest as quoted context.
   */
  readonly message: MessageParam & { readonly role: 'user' };
  /** `allowed-tools` as given (already in effect as a ceiling on the main thread's turn). */
  readonly allowedTools: readonly string[];
  /** The model for this turn (`model` in the frontmatter, aliases resolved); absent: the session's. */
  readonly model?: string;
}

/** A slash command that cannot run as typed (unknown name, a command a person may not type, a bad argument). */
export class SlashCommandError extends Error {
  override readonly name = 'SlashCommandError';
}

interface Loaded {
  readonly entry: CommandFile;
  readonly content: CommandFileContent;
  readonly info: SlashCommandInfo;
}

export interface CommandCatalogOptions {
  readonly projectDir: string;
  readonly homeDir?: string;
  readonly sources?: readonly SettingSource[];
  /** Plugins' skills and commands (`/plugin:name`). */
  readonly plugins?: readonly PluginCommandRoots[];
  readonly sessionId: string;
  /** Settings' `disableSkillShellExecution`: `!` commands are not run. */
  readonly disableShellExecution?: boolean;
  /** Where problems go (the runtime's warnings). */
  readonly warn: (warning: string) => unknown;
}

export class CommandCatalog implements SkillCatalog {
  #files: ReadonlyMap<string, CommandFile>;
  readonly #loaded = new Map<string, Promise<Loaded | undefined>>();
  readonly #options: CommandCatalogOptions;
  #skillTool: AnyTool | undefined;

  constructor(options: CommandCatalogOptions) {
    this.#options = options;
    this.#files = this.#discover();
  }

  /** The folders read again (a skill written or removed since): every file is read afresh on its next use. */
  reload(): void {
    this.#files = this.#discover();
    this.#loaded.clear();
  }

  #discover(): Map<string, CommandFile> {
    const o = this.#options;
    const found = discoverCommandFiles({ projectDir: o.projectDir, ...(o.homeDir !== undefined ? { homeDir: o.homeDir } : {}), ...(o.sources ? { sources: o.sources } : {}), ...(o.plugins ? { plugins: o.plugins } : {}) });
    for (const w of found.warnings) o.warn(w);
    return new Map(found.files.map((f) => [f.name, f]));
  }

  /** Every discovered name (no file read). */
  get names(): readonly string[] {
    return [...this.#files.keys()];
  }

  /** The Skill tool over this catalogue, or undefined when there is nothing to run (the tool stays out of the pool). */
  get skillTool(): AnyTool | undefined {
    if (this.#files.size === 0) return undefined;
    return (this.#skillTool ??= createSkillTool(this));
  }

  /** Every skill and command, read once (a file that cannot be read is left out, with a warning). */
  async list(): Promise<SlashCommandInfo[]> {
    const all = await Promise.all(this.names.map((n) => this.#load(n)));
    return all.filter((l): l is Loaded => l !== undefined).map((l) => l.info);
  }

  async get(name: string): Promise<SlashCommandInfo | undefined> {
    return (await this.#load(name))?.info;
  }

  async listForModel(): Promise<readonly SkillListing[]> {
    return (await this.list())
      .filter((c) => c.modelInvocable)
      .map((c) => ({ name: c.name, description: c.description, kind: c.kind, ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}) }));
  }

  async refusal(name: string): Promise<string | undefined> {
    const loaded = await this.#load(name);
    if (!loaded) {
      const known = (await this.listForModel()).map((s) => s.name);
      return `Unknown skill "${name}". ${known.length > 0 ? `Available: ${known.join(', ')}.` : 'No skills are available.'}`;
    }
    if (!loaded.info.modelInvocable) {
      return `The ${loaded.info.kind} "${name}" can only be run by the user (disable-model-invocation). Do not carry out its steps another way; ask the user to run /${name} if it is wanted.`;
    }
    return undefined;
  }

  async invokeForModel(request: SkillInvokeRequest): Promise<SkillInvocation> {
    const why = await this.refusal(request.name);
    if (why !== undefined) throw new SlashCommandError(why);
    const { context, canUseTool, parentMessage } = request;
    const run: RunCommandCall = async (toolName, input) => runToolUse(syntheticToolUse(toolName, input), parentMessage, canUseTool, context);
    const { loaded, text, attachments } = await this.#render(request.name, request.args, run, context.getAppState().cwd);
    const rules = parseAllowedTools(loaded);
    return {
      name: loaded.info.name,
      kind: loaded.info.kind,
      content: [text, ...attachments].join('\n\n'),
      allowedTools: rules.rules,
      ...(rules.invalid.length > 0 ? { invalidAllowedTools: rules.invalid } : {}),
    };
  }

  /** Renders a person's `/name args`; the ceiling for the turn goes on `agentId`'s calls. */
  async expand(name: string, args: string, runtime: ToolRuntime, signal?: AbortSignal): Promise<SlashCommandExpansion | undefined> {
    if (!this.#files.has(name)) return undefined;
    const first = await this.#load(name);
    if (!first) throw new SlashCommandError(`/${name} could not be read (see the warnings)`);
    if (!first.info.userInvocable) throw new SlashCommandError(`/${name} can only be run by the model (user-invocable: false)`);
    const run: RunCommandCall = async (toolName, input) => {
      const result = await runtime.run([syntheticToolUse(toolName, input)], signal ? { signal } : {});
      return result.outcomes[0]!;
    };
    const { loaded, text, attachments } = await this.#render(name, args, run, contextOf(runtime).getAppState().cwd);
    const rules = parseAllowedTools(loaded);
    if (rules.rules.length > 0 || rules.invalid.length > 0) {
      const agentId = contextOf(runtime).agentId;
      const ceiling = { label: `/${name}`, rules: rules.rules, ...(agentId !== undefined ? { agentId } : {}) };
      contextOf(runtime).setAppState((prev) => ({ ...prev, toolPermissionContext: addAllowCeiling(prev.toolPermissionContext, ceiling) }));
    }
    const tag = formatCommandTag(name, args);
    const model = loaded.content.frontmatter.model;
    return {
      command: loaded.info,
      args,
      message: { role: 'user', content: [{ type: 'text', text: tag }, { type: 'text', text }, ...attachments.map((a) => ({ type: 'text' as const, text: a }))] },
      allowedTools: loaded.content.frontmatter.allowedTools,
      ...(model !== undefined ? { model: resolveModel(model) } : {}),
    };
  }

  async #render(name: string, args: string, run: RunCommandCall, cwd: string) {
    // Read again for each run: the text is rendered fresh (its `!` lines run again), as Claude Code does.
    this.#loaded.delete(name);
    const loaded = await this.#load(name);
    if (!loaded) throw new SlashCommandError(`/${name} could not be read (see the warnings)`);
    const { entry, content } = loaded;
    const rendered = await renderCommand({
      body: content.body,
      args,
      argumentNames: content.frontmatter.arguments,
      ...(entry.kind === 'skill' ? { skillDir: entry.baseDir } : {}),
      ...(entry.pluginRoot !== undefined ? { pluginRoot: entry.pluginRoot } : {}),
      projectDir: this.#options.projectDir,
      sessionId: this.#options.sessionId,
      cwd,
      ...(this.#options.homeDir !== undefined ? { homeDir: this.#options.homeDir } : {}),
      ...(this.#options.disableShellExecution ? { disableShell: true } : {}),
      run,
    });
    const text = entry.kind === 'skill' ? `Base directory for this skill: ${entry.baseDir}\n\n${rendered.text}` : rendered.text;
    return { loaded, text, attachments: rendered.attachments };
  }

  #load(name: string): Promise<Loaded | undefined> {
    let p = this.#loaded.get(name);
    if (!p) {
      p = this.#read(name);
      this.#loaded.set(name, p);
    }
    return p;
  }

  async #read(name: string): Promise<Loaded | undefined> {
    const entry = this.#files.get(name);
    if (!entry) return undefined;
    let content: CommandFileContent;
    try {
      content = await readCommandFile(entry);
    } catch (error) {
      this.#options.warn(`${(error as Error).message}; not loaded`);
      return undefined;
    }
    for (const w of content.warnings) this.#options.warn(w);
    const fm = content.frontmatter;
    const described = [fm.description ?? firstParagraph(content.body), fm.whenToUse].filter(Boolean).join(' ');
    const info: SlashCommandInfo = {
      name,
      kind: entry.kind,
      source: entry.namespace ? `${entry.scope}:${entry.namespace}` : entry.scope,
      description: described,
      ...(fm.argumentHint !== undefined ? { argumentHint: fm.argumentHint } : {}),
      userInvocable: fm.userInvocable,
      modelInvocable: !fm.disableModelInvocation,
      file: entry.file,
    };
    return { entry, content, info };
  }
}

function syntheticToolUse(name: string, input: Record<string, unknown>): ToolUseBlock {
  return { type: 'tool_use', id: `toolu_cmd_${randomUUID().replace(/-/g, '').slice(0, 20)}`, name, input } as ToolUseBlock;
}

/** `allowed-tools` as rules anchored like the settings of the same scope; unreadable ones are left out (narrower). */
function parseAllowedTools(loaded: Loaded): { rules: PermissionRule[]; invalid: string[] } {
  const rules: PermissionRule[] = [];
  const invalid: string[] = [];
  for (const text of loaded.content.frontmatter.allowedTools) {
    const parsed = tryParsePermissionRule(text);
    if (!parsed.ok) {
      invalid.push(text);
      continue;
    }
    rules.push({ source: loaded.entry.scope === 'user' ? 'userSettings' : 'projectSettings', ruleBehavior: 'allow', ruleValue: parsed.value, sourceFile: loaded.entry.file });
  }
  return { rules, invalid };
}

/** Claude Code's fallback description: the first paragraph of the text (headings' `#` dropped). */
function firstParagraph(body: string): string {
  const paragraph = body.trim().split(/\r?\n\s*\r?\n/)[0] ?? '';
  return paragraph.replace(/^#+\s*/gm, '').replace(/\s+/g, ' ').trim().slice(0, 250);
}

/** The catalogue of a runtime with these options: the setting sources it reads, its home folder. */
export function commandCatalogFor(
  options: ToolRuntimeOptions,
  settings: Pick<RuntimeSettings, 'permissionContext' | 'loaded'>,
  sessionId: string,
  warn: (warning: string) => unknown,
): CommandCatalog {
  const s = options.settings;
  return new CommandCatalog({
    projectDir: settings.permissionContext.projectDir,
    disableShellExecution: settings.loaded.disableSkillShellExecution,
    ...(s?.homeDir !== undefined ? { homeDir: s.homeDir } : {}),
    ...(s?.sources !== undefined ? { sources: s.sources } : {}),
    ...(s?.plugins !== undefined && s.plugins.length > 0 ? { plugins: s.plugins } : {}),
    sessionId,
    warn,
  });
}

/** The runtime's catalogue (undefined when a runtime was built without one). */
export function commandCatalogOf(runtime: ToolRuntime): CommandCatalog | undefined {
  return contextOf(runtime).services.commands;
}

/** Every skill and custom command a person or the model could run, with what a menu shows. */
export async function listSlashCommands(runtime: ToolRuntime): Promise<SlashCommandInfo[]> {
  return (await commandCatalogOf(runtime)?.list()) ?? [];
}

/** `/name args` → the user message and the turn's model, or undefined when the text is not one of these commands. */
export async function expandSlashCommand(runtime: ToolRuntime, text: string, options: { readonly signal?: AbortSignal } = {}): Promise<SlashCommandExpansion | undefined> {
  const m = /^\/([^\s/][^\s]*)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!m) return undefined;
  return commandCatalogOf(runtime)?.expand(m[1]!, (m[2] ?? '').trim(), runtime, options.signal);
}

/** The init event's lists: commands a person can type, and skills (by name). */
export async function slashCommandInit(runtime: ToolRuntime): Promise<{ slashCommands: string[]; skills: string[] }> {
  const all = await listSlashCommands(runtime);
  return { slashCommands: all.filter((c) => c.userInvocable).map((c) => c.name), skills: all.filter((c) => c.kind === 'skill').map((c) => c.name) };
}

/** The agent's turn is over: the allowed-tools ceilings of its skills and commands are lifted. */
export function endCommandTurn(runtime: ToolRuntime): void {
  const { agentId, setAppState } = contextOf(runtime);
  setAppState((prev) => {
    const next = removeAllowCeilings(prev.toolPermissionContext, agentId);
    return next === prev.toolPermissionContext ? prev : { ...prev, toolPermissionContext: next };
  });
}
