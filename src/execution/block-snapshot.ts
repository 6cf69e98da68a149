/**
 * The boundary with an embedding program: content blocks and messages are read once, field by field, each read in a
 * `try`, into plain objects. After this nothing downstream touches the caller's object again, so a getter, a Proxy
 * trap, a `toString`/`toJSON`/`Symbol.toPrimitive` that throws — or a getter that answers differently the second
 * time — cannot reach the pipeline, the permission engine, a hook or a tool.
 *
 * What each content entry becomes (the rule `createToolRuntime().run/stream/begin/add` and the executor follow):
 * - `type: 'tool_use'` with a usable id (a non-empty string) → a plain tool_use block. A field that could not be read,
 *   or an input that is not plain JSON (cyclic, a getter that throws, a function inside), is kept as a `problem`: the
 *   call does not run and gets one `is_error` result naming what is wrong.
 * - a kind the client never answers (`text`, `thinking`, server tools and their results, …) → skipped: the Messages
 *   API rejects a tool_result for anything but a client tool_use.
 * - any other `type` (missing, misspelled, not a string, unreadable) with a usable id → answered with an `is_error`
 *   result saying it is not a tool_use (nothing runs); without a usable id, an unknown string kind is skipped (a block
 *   kind newer than this library) and anything else cannot be answered.
 * - cannot be answered (not an object, unreadable, a tool_use without a usable id) → `unanswerable`: the caller gets a
 *   TypeError (`ToolUseBlockError`) naming the entry, synchronously, before anything runs.
 */
import type { AssistantMessage, ToolUseBlock } from '../tool/tool.js';

/** Content kinds the client does not answer with a tool_result. */
export const NON_CLIENT_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'image',
  'document',
  'search_result',
  'tool_result',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
]);

export type BlockSnapshot =
  | { readonly kind: 'tool_use'; readonly block: ToolUseBlock; readonly problem?: string }
  | { readonly kind: 'skip'; readonly type: string }
  | { readonly kind: 'unanswerable'; readonly reason: string };

/** The error for an entry that cannot be answered at all (no usable tool_use id). */
export class ToolUseBlockError extends TypeError {
  override readonly name = 'ToolUseBlockError';
}

const MAX_DEPTH = 64;
const MAX_NODES = 200_000;

/** Blocks this module produced, with their problem: snapshotting one again returns it as is (the runtime, the executor and the pipeline all call). */
const snapshots = new WeakMap<object, string | undefined>();

type Read = { ok: true; value: unknown } | { ok: false };

function read(target: object, key: PropertyKey): Read {
  try {
    return { ok: true, value: (target as Record<PropertyKey, unknown>)[key] };
  } catch {
    return { ok: false };
  }
}

/** A usable tool_use id: a non-empty string. */
export function usableId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Reads one content entry once; never throws. */
export function snapshotContentBlock(value: unknown): BlockSnapshot {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
    return { kind: 'unanswerable', reason: `it is ${describe(value)}, not a content block` };
  }
  if (snapshots.has(value)) {
    const known = snapshots.get(value);
    return known === undefined ? { kind: 'tool_use', block: value as ToolUseBlock } : { kind: 'tool_use', block: value as ToolUseBlock, problem: known };
  }
  const type = read(value, 'type');
  const id = read(value, 'id');
  const typeName = type.ok && typeof type.value === 'string' ? type.value : undefined;
  if (typeName !== undefined && NON_CLIENT_BLOCK_TYPES.has(typeName)) return { kind: 'skip', type: typeName };
  if (!id.ok) return { kind: 'unanswerable', reason: 'its `id` could not be read' };
  if (!usableId(id.value)) {
    if (typeName !== undefined && typeName !== 'tool_use') return { kind: 'skip', type: typeName };
    if (!type.ok) return { kind: 'unanswerable', reason: 'neither its `type` nor its `id` could be read' };
    return { kind: 'unanswerable', reason: `its \`id\` is ${describe(id.value)}; a tool_use needs a non-empty string id` };
  }
  const problems: string[] = [];
  if (typeName !== 'tool_use') {
    const what = !type.ok ? 'could not be read' : type.value === undefined ? 'is missing' : typeName !== undefined ? `is "${printable(typeName)}"` : `is ${describe(type.value)}`;
    problems.push(`This content block's \`type\` ${what}, so it is not a tool_use; it was not run.`);
  }
  const name = read(value, 'name');
  if (!name.ok) problems.push('The tool name could not be read.');
  const input = read(value, 'input');
  let plainInput: unknown;
  if (!input.ok) problems.push('The input could not be read.');
  else {
    const copied = plainCopy(input.value);
    if (copied.ok) plainInput = copied.value;
    else problems.push(copied.problem);
  }
  const block = { type: 'tool_use', id: id.value, name: name.ok ? safeName(name.value) : undefined, input: plainInput } as unknown as ToolUseBlock;
  const problem = problems.length > 0 ? problems.join(' ') : undefined;
  snapshots.set(block, problem);
  return problem === undefined ? { kind: 'tool_use', block } : { kind: 'tool_use', block, problem };
}

/** A non-string name is kept only as a primitive (an object's `toString` is never called later). */
function safeName(name: unknown): unknown {
  return name !== null && (typeof name === 'object' || typeof name === 'function') ? `(${typeof name} name)` : name;
}

function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 57)}...` : clean;
}

type Copied = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * A plain-JSON copy of an input, each property read once. Refuses what cannot be plain JSON: a cycle, a getter or
 * trap that throws, a function, symbol or bigint value. `undefined` values are kept (JavaScript callers use them for
 * absent options). Depth and size are bounded as the shape check bounds them.
 */
export function plainCopy(value: unknown): Copied {
  let nodes = 0;
  const onPath = new Set<object>();
  const fail = (problem: string): Copied => ({ ok: false, problem });
  const at = (path: string) => (path ? `\`${path}\`` : 'the top level');
  const copy = (v: unknown, path: string, depth: number): Copied => {
    if (v === null || v === undefined || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return { ok: true, value: v };
    if (typeof v !== 'object') return fail(`The input holds ${describe(v)} at ${at(path)}; it must be plain JSON.`);
    if (onPath.has(v)) return fail(`The input refers to itself at ${at(path)}; it must be plain JSON.`);
    if (depth > MAX_DEPTH) return fail(`The input is nested more than ${MAX_DEPTH} levels deep at ${at(path)}.`);
    if (++nodes > MAX_NODES) return fail(`The input has more than ${MAX_NODES} objects and arrays.`);
    onPath.add(v);
    try {
      let isArray: boolean;
      let keys: string[];
      try {
        isArray = Array.isArray(v);
        keys = Object.keys(v);
      } catch {
        return fail(`The input could not be read at ${at(path)}.`);
      }
      const out: unknown[] | Record<string, unknown> = isArray ? [] : {};
      for (const key of keys) {
        const childPath = isArray ? `${path}[${key}]` : path ? `${path}.${key}` : key;
        const child = read(v, key);
        if (!child.ok) return fail(`The input's parameter \`${childPath}\` could not be read.`);
        const c = copy(child.value, childPath, depth + 1);
        if (!c.ok) return c;
        // An own `__proto__` key stays an own key (the shape check refuses it by name later), never a prototype.
        if (key === '__proto__') Object.defineProperty(out, key, { value: c.value, enumerable: true, writable: true, configurable: true });
        else (out as Record<string, unknown>)[key] = c.value;
      }
      return { ok: true, value: out };
    } finally {
      onPath.delete(v);
    }
  };
  return copy(value, '', 0);
}

export interface MessageSnapshot {
  /** A plain copy: role, id when it is a string, and the content entries that were readable. */
  readonly message: AssistantMessage;
  /** Every content entry, in order. */
  readonly entries: readonly BlockSnapshot[];
}

/**
 * An assistant message read once. Throws `ToolUseBlockError` when it is not an object, or when an entry cannot be
 * answered (naming each, by index) — before anything has run, so no call is half-done.
 */
export function snapshotAssistantMessage(message: unknown, what = 'the assistant message', options: { readonly strict?: boolean } = {}): MessageSnapshot {
  if (message === null || typeof message !== 'object') throw new ToolUseBlockError(`${what} must be an object, but it is ${describe(message)}`);
  const content = Array.isArray(message) ? { ok: true as const, value: message } : read(message, 'content');
  if (!content.ok) throw new ToolUseBlockError(`the content of ${what} could not be read`);
  let list: unknown[] = [];
  if (typeof content.value === 'string' || content.value === undefined) list = [];
  else {
    try {
      list = Array.isArray(content.value) ? Array.from(content.value as unknown[]) : [];
    } catch {
      throw new ToolUseBlockError(`the content of ${what} could not be read`);
    }
    if (!Array.isArray(content.value)) throw new ToolUseBlockError(`the content of ${what} must be an array or a string, but it is ${describe(content.value)}`);
  }
  const entries = list.map(snapshotContentBlock);
  const bad = entries.flatMap((e, i) => (e.kind === 'unanswerable' ? [`content[${i}]: ${e.reason}`] : []));
  if (bad.length > 0 && options.strict !== false) {
    const shown = bad.slice(0, 5).join('; ') + (bad.length > 5 ? `; and ${bad.length - 5} more` : '');
    throw new ToolUseBlockError(`${what} has content that cannot be answered with a tool_result (nothing was run): ${shown}`);
  }
  const id = Array.isArray(message) ? undefined : read(message, 'id');
  const blocks = entries.flatMap((e) => (e.kind === 'tool_use' ? [e.block] : []));
  const plain = { role: 'assistant', content: blocks, ...(id?.ok && typeof id.value === 'string' ? { id: id.value } : {}) } as AssistantMessage;
  return { message: plain, entries };
}
