/**
 * `toolgate hook`'s judgement: a host's call, already in toolgate's tools (hook-hosts.ts), decided by the engine that
 * `toolgate check` runs — `CheckEngine`, i.e. `resolvePermission` over the settings files Claude Code reads plus
 * toolgate's own and any policy file, with the real built-ins or their stand-ins — and the decision turned into what a
 * hook may say. Nothing runs.
 *
 * What a decision becomes:
 * - deny → deny, with the rule and its file (the model reads it).
 * - ask → ask where toolgate has something to say that the host may not: an ask rule, a safety or tool check, or a
 *   call that runs, reads, writes, searches or fetches (its command, path or URL is judged by toolgate's own
 *   analysis, which may ask where the host's would have allowed). An ask that only means "no rule allows this tool"
 *   for a tool that acts on nothing of the kind (a task list, a skill, an MCP tool) is left to the host, which knows
 *   its own tools and the session's answers. In the host's auto mode an ask the classifier may judge is left to the
 *   host's classifier; in dontAsk an ask is a deny (what dontAsk makes of it).
 * - allow → allow only with `allow: true` (the user's opt-in: a hook's allow skips the host's prompt); otherwise
 *   nothing, and the host decides as it would without the hook.
 * Fail closed: settings that cannot be read, a tool toolgate does not know whose input names a command or path, an
 * input toolgate's schema rejects, an internal error — ask.
 */
import path from 'node:path';
import type { DecisionLayer, PermissionMode } from '../../tool/permission-types.js';
import { PERMISSION_MODES } from '../../tool/permission-types.js';
import { describeLayer } from '../../permissions/explain.js';
import { permissionTraitsOf } from '../../permissions/tool-traits.js';
import type { LoadedSettings } from '../../settings/load-settings.js';
import { CheckEngine, CheckRequestError, type CheckOutput, type CheckResult } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import type { HookAnswer, HookCall, HookRequest } from './hook-hosts.js';

export interface HookJudgeOptions {
  /** Answer allow where the engine allows (default: say nothing and let the host decide). */
  readonly allow?: boolean;
  /** toolgate policy files (or inline JSON), read as `--settings` files: above the project's, below managed policy. */
  readonly policyFiles?: readonly string[];
  readonly homeDir?: string;
  readonly managedSettingsPath?: string;
  /** Working directories the host was given (`--add-dir`) that its hook input does not carry. */
  readonly additionalDirectories?: readonly string[];
  /** Claude Code's `$CLAUDE_PROJECT_DIR`: where its project settings are (default: the call's cwd). */
  readonly projectDir?: string;
  /** Told of each settings load (the log's redaction keys; the server's reload watch). */
  readonly onSettingsLoaded?: (loaded: LoadedSettings) => void;
}

/** One judged call: the answer and, when the engine decided, its decision (for the log). */
export interface JudgedCall {
  readonly call: HookCall;
  readonly answer: HookAnswer;
  readonly decision?: CheckOutput;
}

export interface HookVerdict {
  readonly answer: HookAnswer;
  readonly calls: readonly JudgedCall[];
}

/** Layers whose ask is toolgate's own finding, whatever the tool. */
const FINDING_LAYERS = new Set(['askRule', 'safetyCheck', 'toolCheck', 'hook']);
/** Tool kinds whose every call toolgate's analysis judges (a command, a path, a URL). */
const JUDGED_KINDS = new Set(['shell', 'read', 'write', 'search', 'fetch']);
/** When calls of one host call disagree, the strictest answer stands. */
const RANK: Readonly<Record<HookAnswer['kind'], number>> = { deny: 3, ask: 2, none: 1, allow: 0 };

export class HookJudge {
  readonly #engine: CheckEngine;
  readonly #options: HookJudgeOptions;

  constructor(options: HookJudgeOptions = {}, engine?: CheckEngine) {
    this.#options = options;
    this.#engine =
      engine ??
      new CheckEngine(createCheckToolResolver(), {
        cwd: process.cwd(),
        ...(options.homeDir !== undefined ? { home: options.homeDir } : {}),
        ...(options.managedSettingsPath !== undefined ? { managedSettingsPath: options.managedSettingsPath } : {}),
        flagSettingsFiles: options.policyFiles ?? [],
        ...(options.onSettingsLoaded ? { onSettingsLoaded: options.onSettingsLoaded } : {}),
      });
  }

  /** The engine's remembered contexts dropped (settings changed). */
  forget(): void {
    this.#engine.forget();
  }

  async judge(request: HookRequest): Promise<HookVerdict> {
    if (request.opaque !== undefined) return { answer: { kind: 'ask', reason: `toolgate: ${request.opaque}; a person decides` }, calls: [] };
    if (request.calls.length === 0) return { answer: { kind: 'none', reason: `toolgate: nothing to judge in ${request.hostTool}` }, calls: [] };
    const judged: JudgedCall[] = [];
    for (const call of request.calls) judged.push(await this.#judgeCall(call, request));
    let worst = judged[0]!;
    for (const j of judged) if (RANK[j.answer.kind] > RANK[worst.answer.kind]) worst = j;
    // An allow stands only when every call of the host's call is allowed.
    return { answer: worst.answer, calls: judged };
  }

  async #judgeCall(call: HookCall, request: HookRequest): Promise<JudgedCall> {
    const hostMode = request.mode;
    const dontAsk = hostMode === 'dontAsk';
    // dontAsk is applied here (an ask the hook would raise becomes a deny), so the engine decides as in default mode.
    const mode: PermissionMode = hostMode !== undefined && !dontAsk && (PERMISSION_MODES as readonly string[]).includes(hostMode) ? (hostMode as PermissionMode) : 'default';
    const projectDir = this.#options.projectDir !== undefined ? path.resolve(this.#options.projectDir) : call.cwd;
    const dirs = [...(this.#options.additionalDirectories ?? []).map((d) => path.resolve(call.cwd, d))];
    // The session's working directory is the project; a call whose cwd moved elsewhere keeps it.
    if (!isInside(call.cwd, projectDir)) dirs.push(projectDir);
    let result: CheckResult;
    try {
      result = await this.#engine.decide({ tool: call.tool, input: call.input, cwd: call.cwd, projectDir, mode, ...(dirs.length > 0 ? { additionalDirectories: dirs } : {}) });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (error instanceof CheckRequestError && /^unknown tool/.test(why)) {
        // A tool toolgate does not know: judged only if it acts on something it could judge.
        const acting = ['command', 'file_path', 'path', 'notebook_path', 'url'].find((f) => call.input[f] !== undefined);
        return acting === undefined
          ? { call, answer: { kind: 'none', reason: `toolgate: ${call.tool} is not a tool toolgate knows` } }
          : { call, answer: { kind: 'ask', reason: `toolgate: ${call.tool} is not a tool toolgate knows, and its input names a ${acting}; a person decides` } };
      }
      return { call, answer: { kind: dontAsk ? 'deny' : 'ask', reason: `toolgate could not judge this call (${why}); a person decides` } };
    }
    return { call, decision: result.output, answer: this.#answerFor(result, mode, dontAsk) };
  }

  #answerFor(result: CheckResult, mode: PermissionMode, dontAsk: boolean): HookAnswer {
    const out = result.output;
    const d = result.decision;
    const trace = describe(out);
    // In auto mode the engine denies what its classifier would judge (check runs no model): that is the host's
    // classifier's to judge here.
    if (mode === 'auto' && out.classifier === 'would be consulted') return { kind: 'none', reason: `toolgate: left to the host's auto-mode classifier (${out.reason})` };
    if (d.behavior === 'deny') return { kind: 'deny', reason: `toolgate: denied${trace}` };
    if (d.behavior === 'allow') return this.#options.allow ? { kind: 'allow', reason: `toolgate: allowed${trace}` } : { kind: 'none', reason: `toolgate: would allow${trace}` };
    const finding = FINDING_LAYERS.has(out.layer) || JUDGED_KINDS.has(permissionTraitsOf(result.tool).kind);
    if (!finding) return { kind: 'none', reason: `toolgate: left to the host (${out.reason})` };
    return { kind: dontAsk ? 'deny' : 'ask', reason: `toolgate: ${dontAsk ? 'denied (dontAsk mode), would ask' : 'asks'}${trace}` };
  }
}

/** `by a deny rule Bash(rm:*) (projectSettings): reason`; a plain `: reason` when nothing but the prompt decided. */
function describe(out: CheckOutput): string {
  if (out.layer === 'prompt') return `: ${out.reason}`;
  const rule = out.rule !== null ? ` ${out.rule}${out.source !== null ? ` (${out.source})` : ''}` : '';
  return ` by ${describeLayer(out.layer as DecisionLayer)}${rule}: ${out.reason}`;
}

function isInside(dir: string, root: string): boolean {
  const rel = path.relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
