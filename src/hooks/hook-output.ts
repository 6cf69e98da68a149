/**
 * Turns what one hook did (exit code + stdout/stderr, a callback's return, a timeout…) into a verdict, following
 * Claude Code's exit-code and JSON rules (reference A5, A6). Aggregation across hooks happens in `aggregate.ts`.
 */
import type { RawHookRun } from './run-hook-process.js';
import type { HookEventName, PreToolUseBehavior } from './types.js';

/** The validated fields of one hook's JSON output (unknown fields are ignored, as Claude Code does). */
export interface HookJsonOutput {
  continue?: boolean;
  stopReason?: string;
  systemMessage?: string;
  /** Top-level `decision`: legacy approve/block on PreToolUse, block on PostToolUse(Failure). */
  decision?: 'approve' | 'block';
  reason?: string;
  permissionDecision?: PreToolUseBehavior;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  hasUpdatedToolOutput?: boolean;
  updatedToolOutput?: unknown;
  /** PermissionRequest's `hookSpecificOutput.decision`. */
  requestDecision?: {
    behavior: 'allow' | 'deny';
    updatedInput?: Record<string, unknown>;
    updatedPermissions?: unknown[];
    message?: string;
    interrupt?: boolean;
  };
  retry?: boolean;
}

export interface HookVerdict {
  label: string;
  json?: HookJsonOutput;
  /** Exit 2 (or a timed-out callback on PreToolUse): the message the model sees. */
  blocking?: string;
  /** `failClosed` turned a failure into a deny; the reason names the hook and the failure. */
  failClosed?: string;
  /** Non-blocking problems to report. */
  errors: string[];
}

export interface JudgeMeta {
  label: string;
  failClosed: boolean;
  /** SDK callback semantics: a timeout on PreToolUse blocks the call. */
  isCallback: boolean;
  toolName: string;
}

/** Events where exit 2 does something, so an exit 1 with stderr is probably a hook author's mistake. */
const EXIT2_EVENTS = new Set<HookEventName>(['PreToolUse', 'PostToolUse', 'PostToolUseFailure']);

export function judgeHookRun(event: HookEventName, run: RawHookRun, meta: JudgeMeta): HookVerdict {
  const v: HookVerdict = { label: meta.label, errors: [] };
  const failWith = (problem: string) => {
    v.errors.push(`${meta.label}: ${problem}`);
    if (meta.failClosed) v.failClosed = `Blocked by fail-closed hook ${meta.label}: ${problem}`;
    return v;
  };
  switch (run.kind) {
    case 'aborted':
      return failWith('cancelled (the tool call was aborted)');
    case 'error':
      return failWith(`failed to run: ${run.message}`);
    case 'timeout':
      if (meta.isCallback && event === 'PreToolUse') {
        v.blocking = `Hook ${meta.label} timed out after ${run.timeoutMs} ms`;
        v.errors.push(`${meta.label}: timed out after ${run.timeoutMs} ms`);
        return v;
      }
      return failWith(`timed out after ${formatMs(run.timeoutMs)}; killed, output discarded, no decision`);
    case 'json': {
      const parsed = parseHookJson(event, run.output, meta.toolName);
      v.errors.push(...parsed.problems.map((p) => `${meta.label}: ${p}`));
      v.json = parsed.output;
      return v;
    }
    case 'exited':
      return judgeExit(event, run, meta, v, failWith);
  }
}

function judgeExit(
  event: HookEventName,
  run: Extract<RawHookRun, { kind: 'exited' }>,
  meta: JudgeMeta,
  v: HookVerdict,
  failWith: (problem: string) => HookVerdict,
): HookVerdict {
  const stdout = run.stdout.trim();
  const stderr = run.stderr.trim();
  let json: { output: HookJsonOutput; problems: string[] } | undefined;
  let jsonSyntaxError: string | undefined;
  if (stdout.startsWith('{')) {
    if (run.truncated) jsonSyntaxError = 'stdout exceeded 10 MB and was cut; its JSON was not read';
    else {
      try {
        json = parseHookJson(event, JSON.parse(stdout), meta.toolName);
      } catch (err) {
        jsonSyntaxError = `stdout starts with "{" but is not valid JSON (${(err as Error).message}); treated as plain text`;
      }
    }
  }
  if (run.code === 0) {
    if (jsonSyntaxError) v.errors.push(`${meta.label}: ${jsonSyntaxError}`);
    if (json) {
      v.errors.push(...json.problems.map((p) => `${meta.label}: ${p}`));
      v.json = json.output;
    }
    return v;
  }
  if (run.code === 2) {
    if (!EXIT2_EVENTS.has(event)) {
      // Claude Code does not honour exit 2 on PermissionRequest; PermissionDenied cannot block at all.
      return failWith(`exit code 2 does not block ${event} hooks${event === 'PermissionRequest' ? ' (answer with hookSpecificOutput.decision.behavior "deny")' : ''}${stderr ? `: ${firstLine(stderr)}` : ''}`);
    }
    const o = json?.output;
    const jsonReason =
      (o?.permissionDecision === 'deny' ? o.permissionDecisionReason : undefined) ?? (o?.decision === 'block' ? o.reason : undefined);
    v.blocking = jsonReason || stderr || `Blocked by hook ${meta.label} (exit code 2, no message)`;
    return v;
  }
  if (run.code === null) return failWith(`killed by signal ${run.signal ?? 'unknown'}`);
  if (json && json.problems.length === 0 && !meta.failClosed) {
    // Schema-valid JSON decides on its own; the exit code is ignored (reference A5).
    v.json = json.output;
    return v;
  }
  let problem = `Failed with non-blocking status code ${run.code}${stderr ? `: ${firstLine(stderr)}` : ''}`;
  if (run.code === 1 && stderr && EXIT2_EVENTS.has(event)) {
    problem += ` (warning: exit code 1 does not block; a hook must exit 2 to block${event === 'PreToolUse' ? ', or set "failClosed": true' : ''})`;
  }
  return failWith(problem);
}

/** Validates a hook's JSON field by field; a field of the wrong type is dropped and reported. */
export function parseHookJson(event: HookEventName, value: unknown, toolName: string): { output: HookJsonOutput; problems: string[] } {
  const out: HookJsonOutput = {};
  const problems: string[] = [];
  if (value === undefined || value === null) return { output: out, problems };
  if (!isObject(value)) return { output: out, problems: [`output must be a JSON object (got ${kind(value)})`] };
  const str = (obj: Record<string, unknown>, key: string, at: string): string | undefined => {
    const x = obj[key];
    if (x === undefined || x === null) return undefined;
    if (typeof x === 'string') return x;
    problems.push(`${at}${key} must be a string (got ${kind(x)}); ignored`);
    return undefined;
  };
  if (value.continue !== undefined) {
    if (typeof value.continue === 'boolean') out.continue = value.continue;
    else problems.push(`continue must be true or false (got ${kind(value.continue)}); ignored`);
  }
  out.stopReason = str(value, 'stopReason', '');
  out.systemMessage = str(value, 'systemMessage', '');
  out.reason = str(value, 'reason', '');
  if (value.decision !== undefined && value.decision !== null) {
    if (value.decision === 'approve' || value.decision === 'block') out.decision = value.decision;
    else problems.push(`decision must be "approve" or "block" (got ${kind(value.decision)}); ignored`);
  }
  if (typeof value.retry === 'boolean') out.retry = value.retry;

  const hso = value.hookSpecificOutput;
  if (hso === undefined || hso === null) return { output: out, problems };
  if (!isObject(hso)) {
    problems.push(`hookSpecificOutput must be an object (got ${kind(hso)}); ignored`);
    return { output: out, problems };
  }
  if (hso.hookEventName !== undefined && hso.hookEventName !== event) {
    problems.push(`hookSpecificOutput.hookEventName is ${JSON.stringify(hso.hookEventName)} but this is a ${event} hook; hookSpecificOutput ignored`);
    return { output: out, problems };
  }
  const at = 'hookSpecificOutput.';
  const additional = hso.additionalContext;
  if (Array.isArray(additional) && additional.every((x) => typeof x === 'string')) out.additionalContext = additional.join('\n');
  else out.additionalContext = str(hso, 'additionalContext', at);
  switch (event) {
    case 'PreToolUse': {
      const d = hso.permissionDecision;
      if (d === 'allow' || d === 'deny' || d === 'ask' || d === 'defer') out.permissionDecision = d;
      else if (d !== undefined && d !== null) {
        problems.push(`${at}permissionDecision must be "allow", "deny", "ask" or "defer" (got ${kind(d)}); ignored`);
      }
      out.permissionDecisionReason = str(hso, 'permissionDecisionReason', at);
      out.updatedInput = objectField(hso, 'updatedInput', at, problems);
      break;
    }
    case 'PostToolUse':
      if ('updatedToolOutput' in hso && hso.updatedToolOutput !== undefined) {
        out.hasUpdatedToolOutput = true;
        out.updatedToolOutput = hso.updatedToolOutput;
      } else if ('updatedMCPToolOutput' in hso && hso.updatedMCPToolOutput !== undefined) {
        if (toolName.startsWith('mcp__')) {
          out.hasUpdatedToolOutput = true;
          out.updatedToolOutput = hso.updatedMCPToolOutput;
        } else problems.push(`${at}updatedMCPToolOutput applies to MCP tools only; ignored for ${toolName}`);
      }
      break;
    case 'PermissionRequest': {
      const d = hso.decision;
      if (d === undefined || d === null) break;
      if (!isObject(d) || (d.behavior !== 'allow' && d.behavior !== 'deny')) {
        problems.push(`${at}decision must be an object with behavior "allow" or "deny"; ignored`);
        break;
      }
      const dec: NonNullable<HookJsonOutput['requestDecision']> = { behavior: d.behavior };
      dec.updatedInput = objectField(d, 'updatedInput', `${at}decision.`, problems);
      if (Array.isArray(d.updatedPermissions)) dec.updatedPermissions = d.updatedPermissions;
      else if (d.updatedPermissions !== undefined) problems.push(`${at}decision.updatedPermissions must be an array; ignored`);
      dec.message = str(d, 'message', `${at}decision.`);
      if (typeof d.interrupt === 'boolean') dec.interrupt = d.interrupt;
      out.requestDecision = dec;
      break;
    }
    case 'PermissionDenied':
      if (typeof hso.retry === 'boolean') out.retry = hso.retry;
      else if (hso.retry !== undefined) problems.push(`${at}retry must be true or false; ignored`);
      break;
    case 'PostToolUseFailure':
      break;
  }
  return { output: out, problems };
}

function objectField(obj: Record<string, unknown>, key: string, at: string, problems: string[]): Record<string, unknown> | undefined {
  const x = obj[key];
  if (x === undefined || x === null) return undefined;
  if (isObject(x)) return x;
  problems.push(`${at}${key} must be an object (got ${kind(x)}); ignored`);
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 37)}...` : v);
  return typeof v;
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 297)}...` : line;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
