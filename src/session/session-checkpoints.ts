/**
 * A session's file checkpoints (issue 35): the store (checkpoints.ts) opened in the session's folder for its working
 * directory and added directories, a checkpoint before each user message the loop takes, and the rewind verb — which
 * adds to the store's report what the conversation says it cannot restore: each command run since the checkpoint (its
 * effects outside the tracked folders: other folders, processes, the network) and each write a tool made outside them.
 * Tools are told apart by their traits (a shell, a write with its path field), never by name.
 */
import path from 'node:path';
import { randomUUID } from '../tool/crypto.js';
import { transcriptMessageUuid } from '../agent/transcript.js';
import type { AnyTool, MessageParam } from '../tool/tool.js';
import { TooManyFilesError } from './checkpoint-scan.js';
import { CheckpointStore, type CheckpointRecord, type CheckpointSettings, type RewindResult } from './checkpoints.js';
import type { LocalRun } from './local-run.js';
import type { SessionOptions } from './options.js';
import type { SessionParts } from './setup.js';

export interface SessionCheckpointsOf {
  readonly sessionDir: string;
  readonly sessionId: () => string;
  readonly cwd: string;
  readonly additionalDirectories: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly findTool: (name: string) => AnyTool | undefined;
}

export class SessionCheckpoints {
  readonly #ids = new WeakMap<MessageParam, string>();
  /** The user turn running (its message's id and place): calls inside it are checkpointed under it. */
  #turn: { readonly id: string; readonly index: number } | undefined;
  #opening: Promise<CheckpointStore> | undefined;
  /** The folder is too big to checkpoint: said once (the first message's warning), then nothing is tried. */
  #off = false;

  constructor(
    private readonly settings: CheckpointSettings,
    private readonly of: () => SessionCheckpointsOf,
  ) {}

  /** The store, opened once (a restore a crash cut short is finished then). */
  store(): Promise<CheckpointStore> {
    this.#opening ??= (() => {
      const o = this.of();
      return CheckpointStore.open(path.join(o.sessionDir, 'checkpoints'), [o.cwd, ...o.additionalDirectories.map((d) => path.resolve(o.cwd, d))], this.settings, o.env);
    })();
    return this.#opening;
  }

  /** The id a face gave the message (the Agent SDK's `uuid`), or one made for it. */
  name(message: MessageParam, id: string): void {
    this.#ids.set(message, id);
  }

  idOf(message: MessageParam): string | undefined {
    return this.#ids.get(message);
  }

  /** Before the loop takes `message` (its place in the conversation: `index`). */
  async before(message: MessageParam, index: number, makeId: () => string): Promise<void> {
    const id = this.#ids.get(message) ?? makeId();
    this.#ids.set(message, id);
    this.#turn = { id, index };
    if (this.#off) return;
    await this.#stopsOn(async () => (await this.store()).checkpoint(id, index, labelOf(message)));
  }

  async #stopsOn(take: () => Promise<unknown>): Promise<void> {
    try {
      await take();
    } catch (error) {
      if (error instanceof TooManyFilesError) this.#off = true;
      throw error;
    }
  }

  /**
   * Before a call that is not read-only inside the running turn (the pipeline asks by trait): a checkpoint named by
   * the call's tool_use id, so `rewind(toolUseId)` puts the files back as they were just before that call.
   */
  async beforeCall(toolUseId: string): Promise<void> {
    const turn = this.#turn;
    if (turn && !this.#off) await this.#stopsOn(async () => (await this.store()).checkpoint(toolUseId, turn.index, `before call ${toolUseId}`, turn.id));
  }

  /** The user turns' checkpoints, oldest first (the picker's list; the calls' ones are not rewind targets there). */
  async list(): Promise<readonly CheckpointRecord[]> {
    return (await this.store()).list().filter((r) => r.turn === undefined);
  }

  /**
   * Files back as they were before the user message `id` (its own id, or the id the transcript gives it), or what that
   * would do (`dryRun`); `messages` is the conversation, for what cannot be restored.
   */
  async rewind(id: string, messages: readonly MessageParam[], options: { readonly dryRun?: boolean } = {}): Promise<RewindResult> {
    const store = await this.store();
    const record = store.get(id) ?? store.list().find((r) => transcriptMessageUuid(this.of().sessionId(), r.index) === id);
    if (!record) return { canRewind: false, error: `No file checkpoint for message ${id}` };
    return store.rewind(record.id, { ...options, notRestorable: this.#sideEffects(messages.slice(record.index), store.roots) });
  }

  /** What the calls since a checkpoint did that a rewind of the tracked folders does not undo. */
  #sideEffects(messages: readonly MessageParam[], roots: readonly string[]): string[] {
    const o = this.of();
    const lines: string[] = [];
    const inside = (p: string) => roots.some((r) => p === r || p.startsWith(`${r}/`));
    for (const message of messages) {
      if (message.role !== 'assistant' || typeof message.content === 'string') continue;
      for (const block of message.content) {
        if (block.type !== 'tool_use') continue;
        const input = (block.input ?? {}) as Record<string, unknown>;
        const tool = o.findTool(block.name);
        const traits = tool?.permissionTraits;
        if (traits?.kind === 'shell') {
          const command = traits.commandField ? input[traits.commandField] : undefined;
          lines.push(`${block.name} \`${typeof command === 'string' ? command.slice(0, 200) : '?'}\`: what it did outside the tracked folders (other files, processes, the network) is not restorable`);
        } else if (traits?.kind === 'write' && traits.pathField) {
          const p = input[traits.pathField];
          if (typeof p === 'string' && !inside(path.resolve(o.cwd, p))) lines.push(`${path.resolve(o.cwd, p)}: written outside the tracked folders, not restorable`);
        } else if (traits?.kind !== 'read' && traits?.kind !== 'search' && !readOnly(tool, input)) {
          lines.push(`${block.name}: its external effects are not restorable`);
        }
      }
    }
    return [...new Set(lines)];
  }
}

function readOnly(tool: AnyTool | undefined, input: Record<string, unknown>): boolean {
  if (!tool) return false;
  try {
    return tool.isReadOnly(input as never);
  } catch {
    return false;
  }
}

function labelOf(message: MessageParam): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
}

/**
 * The session's checkpoints when its options ask for them (never on the durable backend: its files are the workers'),
 * taken before each user message the local run takes. `parts` gives the session's parts once it has started.
 */
export function checkpointsFor(options: SessionOptions, local: LocalRun, parts: () => SessionParts): SessionCheckpoints | undefined {
  if (!options.checkpoints || options.backend?.kind === 'restate') return undefined;
  const checkpoints = new SessionCheckpoints(options.checkpoints === true ? {} : options.checkpoints, () => {
    const { runtime, env } = parts();
    return { sessionDir: runtime.sessionDir, sessionId: () => runtime.sessionId, cwd: runtime.cwd, additionalDirectories: options.additionalDirectories ?? [], env, findTool: (n) => runtime.findTool(n) };
  });
  local.beforeTurn = (message) => {
    parts().runtime.beforeMutatingCalls?.((toolUseId) => checkpoints.beforeCall(toolUseId));
    return checkpoints.before(message, local.messages.length, randomUUID);
  };
  return checkpoints;
}
