/**
 * Step 11 of the pipeline: result budgets.
 * - Per tool: a result whose text is longer than the tool's `maxResultSizeChars` is written to
 *   `<sessionDir>/tool-results/<tool_use_id>.txt` and replaced by a `<persisted-output>` block: a preview, the path and
 *   the full size. `Infinity` (Read) never persists: Read bounds itself, and persisting it would send the model into a
 *   Read → file → Read loop. Images are never persisted as text.
 * - Per conversation: `ToolResultBudget` (the `ContentReplacementState` of the contract) adds up the tool results of a
 *   conversation; past its budget the largest older results are replaced by their persisted previews. The agent loop
 *   applies the replacements to its history with `applyToMessages()` before the next request.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import type { AnyTool, MessageParam, ToolResultBlockParam } from '../tool/tool.js';
import type { ContentReplacementState, ToolUseContext } from '../tool/tool-use-context.js';
import { nodeCrypto } from '../tool/crypto.js';
import { formatCount } from '../tool/format-count.js';
import { TelemetrySafeError } from './errors.js';

declare module '../tool/tool-use-context.js' {
  // Optional members: the contract's interface only promises `clone()`, and other states (tests, embedders) may
  // implement just that; the pipeline uses these when present.
  interface ContentReplacementState {
    /** Characters of tool-result text the conversation may hold before old results are replaced. */
    readonly budgetChars?: number;
    /** Characters of tool-result text the conversation holds now (replaced results count as their preview). */
    readonly totalChars?: number;
    record?(entry: ToolResultRecord): void;
    /** Replaces the largest results (except `protect`) until the total fits; returns the ids replaced now. */
    enforce?(sessionDir: string, protect?: ReadonlySet<string>): Promise<readonly string[]>;
    /** The history with every replaced tool_result's content swapped for its preview (untouched messages kept as is). */
    applyToMessages?(messages: readonly MessageParam[]): MessageParam[];
    replacementFor?(toolUseId: string): ToolResultBlockParam['content'] | undefined;
  }
  interface ToolSettings {
    /** Per-tool overrides of `maxResultSizeChars`, by canonical tool name (e.g. `{ "Bash": 60000 }`). */
    readonly maxResultSizeChars?: Readonly<Record<string, number>>;
  }
}

export interface ToolResultRecord {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly block: ToolResultBlockParam;
  /** False for tools that must never be persisted (Infinity limits) and for results already persisted. */
  readonly replaceable: boolean;
}

export const PREVIEW_CHARS = 2_000;
export const DEFAULT_CONVERSATION_BUDGET_CHARS = 400_000;
export const TOOL_RESULTS_DIR = 'tool-results';

/** The per-tool limit in effect: the settings override when there is one, else the tool's own. */
export function effectiveMaxResultSizeChars(tool: AnyTool, context: ToolUseContext): number {
  const override = context.options.settings.maxResultSizeChars?.[tool.name];
  return typeof override === 'number' && override > 0 ? override : tool.maxResultSizeChars;
}

/** Characters of text in a result; images count for nothing (they are never persisted as text). */
export function toolResultTextLength(block: ToolResultBlockParam): number {
  const { content } = block;
  if (content === undefined) return 0;
  if (typeof content === 'string') return content.length;
  let n = 0;
  for (const part of content) if (part.type === 'text') n += part.text.length;
  return n;
}

/** True when `block` is within the tool's limit, i.e. `applyResultSizeLimit` would return it unchanged. */
export function fitsResultSizeLimit(block: ToolResultBlockParam, tool: AnyTool, context: ToolUseContext): boolean {
  const limit = effectiveMaxResultSizeChars(tool, context);
  return !Number.isFinite(limit) || toolResultTextLength(block) <= limit;
}

/** Applies the per-tool limit; returns the block unchanged when it fits. Throws a `ResultBudgetError` if saving fails. */
export async function applyResultSizeLimit(
  block: ToolResultBlockParam,
  tool: AnyTool,
  context: ToolUseContext,
): Promise<{ block: ToolResultBlockParam; persistedPath?: string }> {
  const limit = effectiveMaxResultSizeChars(tool, context);
  if (!Number.isFinite(limit)) return { block };
  const size = toolResultTextLength(block);
  if (size <= limit) return { block };
  const persisted = await persistToolResult(block, context.options.sessionDir, `limit ${formatCount(limit)}`);
  return persisted;
}

export class ResultBudgetError extends TelemetrySafeError {
  override readonly name = 'ResultBudgetError';
}

/** Writes the text of `block` to disk and returns the block with a `<persisted-output>` preview in its place. */
export async function persistToolResult(
  block: ToolResultBlockParam,
  sessionDir: string,
  why: string,
): Promise<{ block: ToolResultBlockParam; persistedPath: string }> {
  const text = textOf(block);
  const file = toolResultPath(sessionDir, block.tool_use_id);
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFile(file, text, { encoding: 'utf8', mode: 0o600 });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ResultBudgetError(
      `could not save the full output (${formatCount(text.length)} characters) to ${file}: ${(error as Error).message}`,
      typeof code === 'string' ? code : 'write_failed',
    );
  }
  const preview = persistedOutputText(text, file, why);
  const images = typeof block.content === 'string' || block.content === undefined ? [] : block.content.filter((b) => b.type !== 'text');
  const content: ToolResultBlockParam['content'] = images.length === 0 ? preview : [{ type: 'text', text: preview }, ...images];
  return { block: { ...block, content }, persistedPath: file };
}

/** `<sessionDir>/tool-results/<id>.txt`; an id that is not a safe file name is hashed (ids come from the model). */
export function toolResultPath(sessionDir: string, toolUseId: string): string {
  const safe = /^[A-Za-z0-9_-]{1,128}$/.test(toolUseId)
    ? toolUseId
    : `id-${nodeCrypto().createHash('sha256').update(String(toolUseId)).digest('hex').slice(0, 32)}`;
  return path.join(sessionDir, TOOL_RESULTS_DIR, `${safe}.txt`);
}

export function persistedOutputText(text: string, file: string, why: string): string {
  let preview = text.slice(0, PREVIEW_CHARS);
  // End the preview on a line boundary when one is reasonably close, so the model does not see half a line.
  const lastNewline = preview.lastIndexOf('\n');
  if (text.length > PREVIEW_CHARS && lastNewline > PREVIEW_CHARS / 2) preview = preview.slice(0, lastNewline);
  const rest = text.length - preview.length;
  return [
    '<persisted-output>',
    `Output too large: ${formatCount(text.length)} characters (${why}). Full output saved to: ${file}`,
    'Read that file (with offset/limit) or Grep it for the parts you need.',
    '',
    `Preview (first ${formatCount(preview.length)} characters):`,
    preview,
    rest > 0 ? `... (${formatCount(rest)} more characters in the file)` : '',
    '</persisted-output>',
  ].join('\n');
}

function textOf(block: ToolResultBlockParam): string {
  const { content } = block;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}

/** A result that may still be replaced: the only kind whose block is kept (their sum is bounded by the budget). */
interface Candidate {
  readonly toolUseId: string;
  readonly block: ToolResultBlockParam;
  readonly chars: number;
  readonly seq: number;
}

/** A replaced result: a few numbers; its preview is rebuilt from the saved file when it is not in the small cache. */
interface Replaced {
  readonly sessionDir: string;
  /** Kept only when the block carries images (they are not in the file). */
  readonly content?: ToolResultBlockParam['content'];
}

export interface ToolResultBudgetOptions {
  readonly budgetChars?: number;
}

const BUDGET_REASON = 'conversation tool-result budget exceeded';
/** Previews kept in memory; older ones are rebuilt from their file on demand (byte-identical: the text is derived). */
const PREVIEW_CACHE_ENTRIES = 64;

/**
 * The per-conversation record of tool-result sizes. Memory stays flat however long the conversation: a result that
 * can never be replaced (small, not replaceable) is only counted; a replaceable one keeps its block until it is
 * replaced (and those blocks sum to about the budget); a replaced one keeps a tiny record, its preview text living in
 * a bounded cache and, beyond it, in the file it was saved to.
 */
export class ToolResultBudget implements ContentReplacementState {
  readonly budgetChars: number;
  #candidates = new Map<string, Candidate>();
  #replaced = new Map<string, Replaced>();
  #previews = new LRUCache<string, NonNullable<ToolResultBlockParam['content']>>({ max: PREVIEW_CACHE_ENTRIES });
  #total = 0;
  #seq = 0;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: ToolResultBudgetOptions = {}) {
    this.budgetChars = options.budgetChars ?? DEFAULT_CONVERSATION_BUDGET_CHARS;
  }

  get totalChars(): number {
    return this.#total;
  }

  /** Blocks held in memory (results that may still be replaced): bounded by the budget, not by the call count. */
  get retainedBlocks(): number {
    return this.#candidates.size;
  }

  record(entry: ToolResultRecord): void {
    const previous = this.#candidates.get(entry.toolUseId);
    if (previous) {
      this.#total -= previous.chars;
      this.#candidates.delete(entry.toolUseId);
    }
    const chars = toolResultTextLength(entry.block);
    this.#total += chars;
    // Only what could ever be chosen is kept: replacing a result no longer than its preview would save nothing.
    if (entry.replaceable && chars > PREVIEW_CHARS && !this.#replaced.has(entry.toolUseId)) {
      this.#candidates.set(entry.toolUseId, { toolUseId: entry.toolUseId, block: entry.block, chars, seq: this.#seq++ });
    }
  }

  enforce(sessionDir: string, protect: ReadonlySet<string> = new Set()): Promise<readonly string[]> {
    // Serialised: two parallel tools finishing together must not pick (and persist) the same victim twice.
    const run = this.#queue.then(() => this.#enforceNow(sessionDir, protect));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #enforceNow(sessionDir: string, protect: ReadonlySet<string>): Promise<string[]> {
    const replacedNow: string[] = [];
    if (this.#total <= this.budgetChars) return replacedNow;
    const candidates = [...this.#candidates.values()]
      .filter((e) => !protect.has(e.toolUseId))
      .sort((a, b) => b.chars - a.chars || a.seq - b.seq);
    for (const entry of candidates) {
      if (this.#total <= this.budgetChars) break;
      const { block } = await persistToolResult(entry.block, sessionDir, BUDGET_REASON);
      const content = block.content ?? '';
      this.#total += toolResultTextLength(block) - entry.chars;
      this.#candidates.delete(entry.toolUseId);
      const hasImages = typeof content !== 'string' && content.some((b) => b.type !== 'text');
      this.#replaced.set(entry.toolUseId, { sessionDir, ...(hasImages ? { content } : {}) });
      this.#previews.set(entry.toolUseId, content);
      replacedNow.push(entry.toolUseId);
    }
    return replacedNow;
  }

  replacementFor(toolUseId: string): ToolResultBlockParam['content'] | undefined {
    const replaced = this.#replaced.get(toolUseId);
    if (!replaced) return undefined;
    if (replaced.content !== undefined) return replaced.content;
    let preview = this.#previews.get(toolUseId);
    if (preview === undefined) {
      preview = rebuildPreview(replaced.sessionDir, toolUseId);
      this.#previews.set(toolUseId, preview);
    }
    return preview;
  }

  applyToMessages(messages: readonly MessageParam[]): MessageParam[] {
    return messages.map((message) => {
      if (message.role !== 'user' || typeof message.content === 'string') return message;
      let changed = false;
      const content = message.content.map((part) => {
        if (part.type !== 'tool_result' || !this.#replaced.has(part.tool_use_id)) return part;
        const replacement = this.replacementFor(part.tool_use_id);
        if (replacement === undefined || replacement === part.content) return part;
        changed = true;
        return { ...part, content: replacement };
      });
      return changed ? { ...message, content } : message;
    });
  }

  clone(): ToolResultBudget {
    const copy = new ToolResultBudget({ budgetChars: this.budgetChars });
    copy.#candidates = new Map(this.#candidates);
    copy.#replaced = new Map(this.#replaced);
    copy.#total = this.#total;
    copy.#seq = this.#seq;
    return copy;
  }
}

/** The preview `persistToolResult` made, rebuilt from the saved file (the same text, so the prompt cache holds). */
function rebuildPreview(sessionDir: string, toolUseId: string): string {
  const file = toolResultPath(sessionDir, toolUseId);
  try {
    return persistedOutputText(readFileSync(file, 'utf8'), file, BUDGET_REASON);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return ['<persisted-output>', `This output was saved to ${file}, which can no longer be read (${code}).`, '</persisted-output>'].join('\n');
  }
}
