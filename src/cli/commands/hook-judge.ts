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
import os from 'node:os';
import path from 'node:path';
import type { DecisionLayer, PermissionMode } from '../../tool/permission-types.js';
import { PERMISSION_MODES } from '../../tool/permission-types.js';
import { describeLayer } from '../../permissions/explain.js';
import { existsSync, observeFacts, realpathNative, statSync, stillHolds, type FactMemo, type Observations } from '../../permissions/observed-fs.js';
import { permissionTraitsOf } from '../../permissions/tool-traits.js';
import type { LoadedSettings } from '../../settings/load-settings.js';
import { isReusable } from './check-batch.js';
import { CheckEngine, CheckRequestError, type CheckOutput, type CheckResult } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';
import { actingField, CODE_FIELDS, type HookAnswer, type HookCall, type HookRequest } from './hook-hosts.js';
import { searchFinding } from './hook-search.js';
import { isInlineJson } from '../../tool/read-config-file.js';

export interface HookJudgeOptions {
  /** Answer allow where the engine allows (default: say nothing and let the host decide). */
  readonly allow?: boolean;
  /** toolgate policy files (or inline JSON), read as `--settings` files: above the project's, below managed policy. */
  readonly policyFiles?: readonly string[];
  readonly homeDir?: string;
  readonly managedSettingsPath?: string;
  /** Working directories the host was given (`--add-dir`) that its hook input does not carry. */
  readonly additionalDirectories?: readonly string[];
  /**
   * The project (`$CLAUDE_PROJECT_DIR`, `$GEMINI_PROJECT_DIR`, `--project-dir`): where its settings are. Default: found
   * per request from the request's own `cwd` (projectRootOf) — never from a directory inside the tool input.
   */
  readonly projectDir?: string;
  /** Told of each settings load (the log's redaction keys; the server's reload watch). */
  readonly onSettingsLoaded?: (loaded: LoadedSettings) => void;
  /**
   * Remember verdicts and reuse them for equal requests whose filesystem facts still hold (`toolgate hook serve`,
   * which must call `forget()` when a settings file changes). See HookJudge.judge.
   */
  readonly reuseVerdicts?: boolean;
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
  /** The settings of the project the call was judged in (the log's redaction uses these, not another request's). */
  readonly settings?: LoadedSettings;
}

/** Layers whose ask is toolgate's own finding, whatever the tool. */
const FINDING_LAYERS = new Set(['askRule', 'safetyCheck', 'toolCheck', 'hook']);
/** Tool kinds whose every call toolgate's analysis judges (a command, a path, a URL). */
const JUDGED_KINDS = new Set(['shell', 'read', 'write', 'search', 'fetch']);
/**
 * Sources whose allow rules the host reads for itself (Claude Code: .claude/settings*.json), or that it never reads at
 * all (.toolgate/settings*.json, which a cloned repository brings): an allow these decide is left to the host, so a
 * repository's files can never turn a hook answer into allow.
 */
const PROJECT_SOURCES = new Set(['projectSettings', 'localSettings']);
/** When calls of one host call disagree, the strictest answer stands. */
const RANK: Readonly<Record<HookAnswer['kind'], number>> = { deny: 3, ask: 2, none: 1, allow: 0 };

/**
 * Verdicts remembered at most, and characters of their keys and facts (a search's facts list whole folders): past
 * either, all are forgotten and remembering starts again.
 */
const MAX_REMEMBERED = 10_000;
const MAX_CHARS = 32 * 1024 * 1024;

type Judged = JudgedCall & { settings?: LoadedSettings; reusable?: boolean };

export class HookJudge {
  readonly #engine: CheckEngine;
  readonly #options: HookJudgeOptions;
  readonly #known = new Map<string, { readonly verdict: HookVerdict; readonly facts: Observations }>();
  #epoch = 0;
  #chars = 0;
  #recording = false;

  constructor(options: HookJudgeOptions = {}, engine?: CheckEngine) {
    // A relative policy path is read from each request's project (the engine resolves `--settings` files against the
    // cwd it decides in): a cloned repository holding a file of that name would supply the policy, allow rules and all.
    const relative = (options.policyFiles ?? []).find((f) => !isInlineJson(f) && !path.isAbsolute(f));
    if (relative !== undefined) throw new Error(`--policy takes an absolute path or inline JSON: "${relative}" would be read from each project`);
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
    this.#known.clear();
    this.#chars = 0;
  }

  /**
   * With `reuseVerdicts`, as `toolgate check --batch` does (check-batch.ts): a host asks about the same call again and
   * again (`git status` after every edit), and a verdict is reused for a request equal in everything the judgement
   * reads (not its session or tool_use ids) only if asking every filesystem question the first judgement asked
   * (permissions/observed-fs.ts; this file's project lookup and hook-search.ts ask through it too) gets the same
   * answers now. Settings files are the server's to watch (it calls `forget`). One judgement records at a time:
   * overlapping recordings would mix their facts, so one that starts meanwhile is judged without being remembered.
   * `facts`: the answers of this moment's filesystem questions, shared with other requests that arrived before it.
   */
  async judge(request: HookRequest, facts?: FactMemo): Promise<HookVerdict> {
    if (this.#options.reuseVerdicts !== true) return (await this.#judgeAfresh(request)).verdict;
    if (this.#engine.contextEpoch !== this.#epoch) {
      this.#known.clear();
      this.#chars = 0;
      this.#epoch = this.#engine.contextEpoch;
    }
    const key = JSON.stringify([request.host, request.event, request.hostTool, request.cwd, request.mode ?? null, request.opaque ?? null, request.calls]);
    const known = this.#known.get(key);
    if (known !== undefined) {
      if (await stillHolds(known.facts, facts)) return known.verdict;
      this.#known.delete(key);
    }
    if (this.#recording) return (await this.#judgeAfresh(request)).verdict;
    this.#recording = true;
    let recorded: Awaited<ReturnType<typeof observeFacts<{ verdict: HookVerdict; reusable: boolean }>>>;
    try {
      recorded = await observeFacts(() => this.#judgeAfresh(request));
    } finally {
      this.#recording = false;
    }
    const { result, observations } = recorded;
    if (observations !== undefined && result.reusable && this.#engine.contextEpoch === this.#epoch) {
      let chars = key.length;
      for (let i = 0; i < observations.facts.length; i++) chars += observations.paths[i]!.length + observations.facts[i]!.length;
      if (this.#known.size >= MAX_REMEMBERED || this.#chars + chars > MAX_CHARS) {
        this.#known.clear();
        this.#chars = 0;
      }
      this.#known.set(key, { verdict: result.verdict, facts: observations });
      this.#chars += chars;
    }
    return result.verdict;
  }

  async #judgeAfresh(request: HookRequest): Promise<{ verdict: HookVerdict; reusable: boolean }> {
    const projectDir = this.#projectDir(request);
    if (request.opaque !== undefined || request.calls.length === 0) {
      const settings = this.#settingsOf(request, projectDir);
      const answer: HookAnswer = request.opaque !== undefined ? { kind: 'ask', reason: `toolgate: ${request.opaque}; a person decides` } : { kind: 'none', reason: `toolgate: nothing to judge in ${request.hostTool}` };
      return { verdict: { answer, calls: [], ...(settings !== undefined ? { settings } : {}) }, reusable: false };
    }
    const judged: Judged[] = [];
    for (const call of request.calls) judged.push(await this.#judgeCall(call, request, projectDir));
    let worst = judged[0]!;
    for (const j of judged) if (RANK[j.answer.kind] > RANK[worst.answer.kind]) worst = j;
    // An allow stands only when every call of the host's call is allowed.
    const settings = judged.find((j) => j.settings !== undefined)?.settings ?? this.#settingsOf(request, projectDir);
    const verdict: HookVerdict = { answer: worst.answer, calls: judged.map(({ settings: _s, reusable: _r, ...j }) => j), ...(settings !== undefined ? { settings } : {}) };
    return { verdict, reusable: judged.every((j) => j.reusable === true) };
  }

  /** The project of a request: given (environment, --project-dir), else found from the request's own cwd. */
  #projectDir(request: HookRequest): string {
    if (this.#options.projectDir !== undefined) return path.resolve(request.cwd, this.#options.projectDir);
    return projectRootOf(request.cwd, this.#options.homeDir ?? os.homedir());
  }

  /** The project's settings for a request no engine decision loaded them for (for the log's redaction); never throws. */
  #settingsOf(request: HookRequest, projectDir: string): LoadedSettings | undefined {
    try {
      return this.#engine.settingsFor({ cwd: request.cwd, projectDir, mode: 'default' });
    } catch {
      return undefined;
    }
  }

  async #judgeCall(call: HookCall, request: HookRequest, projectDir: string): Promise<Judged> {
    const hostMode = request.mode;
    const dontAsk = hostMode === 'dontAsk';
    // dontAsk is applied here (an ask the hook would raise becomes a deny), so the engine decides as in default mode.
    const mode: PermissionMode = hostMode !== undefined && !dontAsk && (PERMISSION_MODES as readonly string[]).includes(hostMode) ? (hostMode as PermissionMode) : 'default';
    // The session is the project: its rules are anchored there (Claude Code's `./` is its original cwd). Its working
    // directories: the project, the host's cwd, --add-dir. The call's own directory (a `cd`, or one the model chose) is
    // where a command's paths resolve — the shell's cwd — and never a working directory.
    const working = [projectDir, request.cwd, ...(this.#options.additionalDirectories ?? []).map((d) => path.resolve(request.cwd, d))];
    const dirs = working.slice(1).filter((d) => !isInside(d, projectDir));
    const outside = call.modelDir !== undefined && !working.some((d) => isInside(realOf(call.modelDir!), realOf(d)));
    let result: CheckResult;
    try {
      result = await this.#engine.decide({ tool: call.tool, input: call.input, cwd: projectDir, shellCwd: call.cwd, projectDir, mode, ...(dirs.length > 0 ? { additionalDirectories: dirs } : {}) });
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      if (error instanceof CheckRequestError && /^unknown tool/.test(why)) {
        // A tool toolgate does not know: judged only if it acts on something it could judge (at any depth of its input).
        const acting = actingField(call.input);
        return acting === undefined
          ? { call, answer: { kind: 'none', reason: `toolgate: ${call.tool} is not a tool toolgate knows` } }
          : { call, answer: { kind: dontAsk ? 'deny' : 'ask', reason: `toolgate: ${call.tool} is not a tool toolgate knows, and its input names a ${acting}; a person decides` } };
      }
      return { call, answer: { kind: dontAsk ? 'deny' : 'ask', reason: `toolgate could not judge this call (${why}); a person decides` } };
    }
    let answer = this.#answerFor(result, call, mode, dontAsk);
    const stricter = (a: HookAnswer | undefined) => {
      if (a !== undefined && RANK[a.kind] > RANK[answer.kind]) answer = dontAsk && a.kind === 'ask' ? { kind: 'deny', reason: `${a.reason} (dontAsk mode)` } : a;
    };
    if (outside) stricter({ kind: 'ask', reason: `toolgate: asks: the call runs in ${call.modelDir}, a directory the model chose outside the working directories` });
    if (answer.kind !== 'deny') stricter(searchFinding(call, result.ctx));
    return { call, decision: result.output, answer, reusable: isReusable(result.tool, result.ctx), ...(result.settings !== undefined ? { settings: result.settings } : {}) };
  }

  #answerFor(result: CheckResult, call: HookCall, mode: PermissionMode, dontAsk: boolean): HookAnswer {
    const out = result.output;
    const d = result.decision;
    const trace = describe(out);
    // In auto mode the engine denies what its classifier would judge (check runs no model): that is the host's
    // classifier's to judge here.
    if (mode === 'auto' && out.classifier === 'would be consulted') return { kind: 'none', reason: `toolgate: left to the host's auto-mode classifier (${out.reason})` };
    if (d.behavior === 'deny') return { kind: 'deny', reason: `toolgate: denied${trace}` };
    if (d.behavior === 'allow') {
      if (out.source !== null && PROJECT_SOURCES.has(out.source)) return { kind: 'none', reason: `toolgate: left to the host: allowed only by the project's own rule${trace}` };
      return this.#options.allow ? { kind: 'allow', reason: `toolgate: allowed${trace}` } : { kind: 'none', reason: `toolgate: would allow${trace}` };
    }
    const kind = permissionTraitsOf(result.tool).kind;
    // A tool that runs commands or code toolgate does not analyse (PowerShell, a REPL): its ask is a finding too.
    const runsCode = kind !== 'shell' && result.tool.isMcp !== true && actingField(call.input, CODE_FIELDS) !== undefined;
    const finding = FINDING_LAYERS.has(out.layer) || JUDGED_KINDS.has(kind) || runsCode;
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

/**
 * The project a request's cwd belongs to when the host does not say: the outermost folder from the cwd up that holds
 * `.claude/` or `.git` and is owned by this user, below the home folder (whose `.claude/` is the user's settings) —
 * the outermost, so a folder the model makes inside the project (`mkdir sub/.claude`) cannot become the project and
 * drop the project's rules, and a folder another user owns (`/tmp/.git`) is never taken. None: the cwd itself.
 */
export function projectRootOf(cwd: string, homeDir: string): string {
  const home = path.resolve(homeDir);
  const uid = process.getuid?.();
  let found: string | undefined;
  for (let dir = path.resolve(cwd); ; ) {
    if (dir === home || dir === path.dirname(dir)) break;
    if ((isDir(path.join(dir, '.claude')) || existsSync(path.join(dir, '.git'))) && (uid === undefined || ownedBy(dir, uid))) found = dir;
    dir = path.dirname(dir);
  }
  return found ?? path.resolve(cwd);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function ownedBy(p: string, uid: number): boolean {
  try {
    return statSync(p).uid === uid;
  } catch {
    return false;
  }
}

function realOf(p: string): string {
  try {
    return realpathNative(p);
  } catch {
    return path.resolve(p);
  }
}

function isInside(dir: string, root: string): boolean {
  const rel = path.relative(root, dir);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
