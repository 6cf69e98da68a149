/**
 * A tool call as the layers below the boundary see it: the tool_use block read once (block-snapshot.ts), its tool
 * looked up once and its input parsed once. The executor prepares each call when its block arrives (it needs the
 * tool and the parsed input to decide concurrency); the pipeline's steps trust what it was given and never go back to
 * the block, the pool or the schema for the same answers.
 */
import { findToolByName } from '../tool/find-tool.js';
import type { AnyTool, ToolUseBlock, Tools } from '../tool/tool.js';
import { snapshotContentBlock } from './block-snapshot.js';
import { parseToolInput, type ParsedInput } from './input-validation.js';

export interface PreparedToolUse {
  /** The plain copy of the block (never the caller's object). */
  readonly block: ToolUseBlock;
  /** Why this block is answered with an error and not run (an unreadable field, not a tool_use, a repeated id). */
  readonly problem?: string;
  /** The error class that goes with `problem`. */
  readonly problemClass?: string;
  /** The tool the name resolved to (by name, alias, then the former tools); absent when there is none. */
  readonly tool?: AnyTool;
  /** Step 3, done once: the shape checks and the tool's schema (the deferred-tool hint is added where it fails). */
  readonly parsed?: ParsedInput;
}

/** A block that cannot be answered at all (no usable id) has no prepared form: the caller throws or reports it. */
export type PrepareResult =
  | { readonly kind: 'call'; readonly call: PreparedToolUse }
  | { readonly kind: 'skip'; readonly type: string }
  | { readonly kind: 'unanswerable'; readonly reason: string };

/** Reads the block (or trusts a copy this module made), looks its tool up, parses its input. Never throws. */
export function prepareToolUse(block: unknown, tools: Tools, fallbackTools?: Tools): PrepareResult {
  const snapshot = snapshotContentBlock(block);
  if (snapshot.kind === 'skip') return { kind: 'skip', type: snapshot.type };
  if (snapshot.kind === 'unanswerable') return { kind: 'unanswerable', reason: snapshot.reason };
  return { kind: 'call', call: prepareSnapshot(snapshot.block, snapshot.problem, tools, fallbackTools) };
}

export function prepareSnapshot(block: ToolUseBlock, problem: string | undefined, tools: Tools, fallbackTools?: Tools): PreparedToolUse {
  if (problem !== undefined) return { block, problem };
  const tool = lookupTool(block.name, tools, fallbackTools);
  if (!tool) return { block };
  return { block, tool, parsed: parseToolInput(tool, block.input) };
}

/** The same call, answered with an error instead of run (a repeated id found by whoever admits the calls). */
export function withProblem(call: PreparedToolUse, problem: string, problemClass: string): PreparedToolUse {
  return { block: call.block, problem, problemClass };
}

function lookupTool(name: unknown, tools: Tools, fallback: Tools | undefined): AnyTool | undefined {
  if (typeof name !== 'string') return undefined;
  return findToolByName(tools, name) ?? (fallback ? findToolByName(fallback, name) : undefined);
}
