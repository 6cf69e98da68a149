/**
 * What the pipeline tells the telemetry sink about one call, built only when a sink listens: the permission decision
 * (its layer, rule and source, what a person answered, the tool's kind and the file's extension — never the path), and
 * the end (outcome, stage, error class, duration, input and result sizes, lines added and removed). Content — the
 * input itself, an error's text — goes in `detail`, and only to a sink switched on for tool details.
 */
import type { PermissionDecision } from '../tool/permission-types.js';
import type { AnyTool, ToolResultBlockParam } from '../tool/tool.js';
import { emitToolEvent, type ToolEventSink } from './errors.js';
import type { ToolUseStage } from './outcome.js';

/** The tool's name for telemetry: MCP tools as `mcp_tool` (their names are user data), a made-up name as `unknown`. */
export function telemetryToolName(tool: AnyTool | undefined): string {
  if (!tool) return 'unknown';
  return tool.isMcp === true || tool.mcpInfo !== undefined ? 'mcp_tool' : tool.name;
}

export function emitDecisionEvent(sink: ToolEventSink, tool: AnyTool, toolUseId: string, decision: PermissionDecision, input: Record<string, unknown>): void {
  const reason = decision.decisionReason;
  emitToolEvent(sink, 'tool.decision', {
    'tool.name': telemetryToolName(tool),
    'tool.use_id': toolUseId,
    'tool.kind': tool.permissionTraits?.kind,
    'tool.file_extension': fileExtension(tool, input),
    'tool.decision': decision.behavior,
    'tool.decision.layer': reason?.layer,
    'tool.decision.source': reason?.source,
    'tool.decision.rule': reason?.rule,
    'tool.decision.answer': reason?.answer,
    // Auto mode: what the classifier did, at which stage, and what it cost (never its reason: it quotes the call).
    'tool.decision.classifier': reason?.classifier?.outcome,
    'tool.decision.classifier.stage': reason?.classifier?.stage,
    'tool.decision.classifier.input_tokens': reason?.classifier?.usage?.input_tokens,
    'tool.decision.classifier.output_tokens': reason?.classifier?.usage?.output_tokens,
    'tool.decision.classifier.cost_usd': reason?.classifier?.costUsd,
  });
}

export interface ToolEndFacts {
  readonly tool: AnyTool | undefined;
  readonly toolUseId: string;
  readonly result: ToolResultBlockParam;
  readonly isError: boolean;
  readonly stage: ToolUseStage;
  readonly errorClass: string | undefined;
  readonly durationMs: number;
  readonly persisted: boolean;
  readonly input: Record<string, unknown> | undefined;
  readonly output: unknown;
}

export function emitEndEvent(sink: ToolEventSink, f: ToolEndFacts): void {
  const lines = f.stage === 'completed' && !f.isError && f.tool?.linesChanged ? linesOf(f.tool, f.output) : undefined;
  const details = sink.content?.toolDetails === true;
  emitToolEvent(
    sink,
    'tool.end',
    {
      'tool.name': telemetryToolName(f.tool),
      'tool.use_id': f.toolUseId,
      'tool.outcome': f.isError ? 'error' : 'success',
      'tool.stage': f.stage,
      'tool.error_class': f.errorClass,
      'tool.duration_ms': Math.round(f.durationMs * 1000) / 1000,
      'tool.result_persisted': f.persisted,
      'tool.input_size_bytes': f.input !== undefined ? jsonBytes(f.input) : undefined,
      'tool.result_size_bytes': resultBytes(f.result),
      'tool.lines_added': lines?.added,
      'tool.lines_removed': lines?.removed,
    },
    details
      ? {
          ...(f.input !== undefined ? { input: f.input } : {}),
          ...(f.isError ? { error: resultText(f.result) } : {}),
          ...(f.tool?.mcpInfo ? { mcpServer: f.tool.mcpInfo.serverName, mcpTool: f.tool.mcpInfo.toolName } : {}),
        }
      : undefined,
  );
}

function linesOf(tool: AnyTool, output: unknown): { added: number; removed: number } | undefined {
  try {
    const counted = tool.linesChanged?.(output);
    return counted && Number.isFinite(counted.added) && Number.isFinite(counted.removed) ? { added: counted.added, removed: counted.removed } : undefined;
  } catch {
    return undefined; // a count that fails is not the call's problem
  }
}

/** `.ts`, `.py`…: the extension of the file a path-carrying tool touches (the path itself is never reported). */
function fileExtension(tool: AnyTool, input: Record<string, unknown>): string | undefined {
  if (!tool.getPath) return undefined;
  try {
    const file = tool.getPath(input);
    const m = typeof file === 'string' ? /\.([A-Za-z0-9]{1,12})$/.exec(file) : null;
    return m ? m[1]!.toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function jsonBytes(value: unknown): number | undefined {
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return undefined;
  }
}

function resultBytes(block: ToolResultBlockParam): number {
  const { content } = block;
  if (typeof content === 'string') return Buffer.byteLength(content, 'utf8');
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content) {
    if (part.type === 'text') n += Buffer.byteLength(part.text, 'utf8');
    else if (part.type === 'image' && part.source.type === 'base64') n += part.source.data.length;
    else n += jsonBytes(part) ?? 0;
  }
  return n;
}

function resultText(block: ToolResultBlockParam): string {
  const { content } = block;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
}
