/**
 * `toolgate check` — the policy test kit. One decision:
 *   toolgate check [--cwd DIR] [--mode MODE] [--settings FILE] [--allow RULE]… [--deny RULE]… [--ask RULE]… TOOL 'INPUT_JSON'
 * prints the decision and its trace in words (`--json`: as JSON). `--batch` reads JSON Lines on stdin and writes one
 * JSON line per input line, in order (blank lines too); a bad line gets `{"error": "…"}` and the batch goes on; a
 * request's `id` is echoed. `--fail-on deny,ask` exits 3 when any decision is one of those. Nothing is executed.
 * A line repeated in a batch gets its earlier answer only while every filesystem fact behind it still holds
 * (check-batch.ts).
 */
import { StringDecoder } from 'node:string_decoder';
import { CommanderError, type Command } from 'commander';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import { explainDecision } from '../../permissions/explain.js';
import { BatchAnswers } from './check-batch.js';
import { SettingsWatch } from './settings-watch.js';
import { writeStdout } from '../stdout.js';
import { CheckEngine, CheckRequestError, type CheckDefaults } from './check-request.js';
import { createCheckToolResolver } from './check-tools.js';

interface CheckOptions {
  cwd: string;
  projectDir?: string;
  home?: string;
  mode?: string;
  settings: string[];
  managedSettings?: string;
  allow: string[];
  deny: string[];
  ask: string[];
  json?: boolean;
  batch?: boolean;
  failOn?: string;
}

/** What `--fail-on` can name: decisions, and (for --batch) lines that got no decision. */
const FAIL_ON = ['deny', 'ask', 'allow', 'error'] as const;
type FailOn = (typeof FAIL_ON)[number];
/** The exit code when a decision is one `--fail-on` names (1 is a usage error, 2 a request that got no decision). */
const FAIL_ON_EXIT = 3;

const BATCH_HELP = `
--batch: one JSON request per stdin line, one JSON answer per line on stdout, in the same order.
  Request: {"id"?: any, "tool": "Bash", "input": {"command": "git push"},
            "cwd"?: "/abs", "projectDir"?: "/abs", "home"?: "/abs", "mode"?: "default|acceptEdits|plan|…",
            "additionalDirectories"?: ["/abs", …],
            "rules"?: [{"source": "projectSettings", "behavior": "allow|deny|ask", "rule": "Bash(git push:*)", "root"?: "/abs"}]}
    Without "rules", the settings files of cwd/projectDir/home (and --settings, --allow/--deny/--ask) decide;
    with "rules", only those rules. Fields not given default to the command line's.
  Answer:  {"id"?: …, "behavior": "allow|ask|deny", "layer": "…", "rule": "…"|null, "source": "…"|null, "reason": "…"}
           or {"id"?: …, "error": "…"} for a line that got no decision (bad JSON, a blank line, an unknown tool,
           input the tool's schema rejects, a bad field); the batch goes on.

Exit codes: 0 decided; 1 usage error; 2 no decision (one request); 3 a decision --fail-on names.
Example (CI): toolgate check --batch --fail-on deny,ask < requests.jsonl`;

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description('decide one tool call (or a JSONL batch with --batch) and explain the decision; nothing is executed')
    .argument('[tool]', 'tool name, e.g. Bash, Read, Edit, WebFetch, mcp__server__tool')
    .argument('[input]', 'tool input as JSON, e.g. \'{"command": "git status"}\'')
    .option('--cwd <dir>', 'working directory', process.cwd())
    .option('--project-dir <dir>', 'project root for .claude/ and .toolgate/ settings (default: cwd)')
    .option('--home <dir>', 'home directory (~) for rules and user settings')
    .option('--mode <mode>', `permission mode: ${PERMISSION_MODES.join(', ')}`)
    .option('--settings <file>', 'extra settings file or inline JSON (repeatable; flagSettings)', collect, [])
    .option('--managed-settings <file>', 'managed policy file (default: the platform location)')
    .option('--allow <rule>', 'allow rule (repeatable)', collect, [])
    .option('--deny <rule>', 'deny rule (repeatable)', collect, [])
    .option('--ask <rule>', 'ask rule (repeatable)', collect, [])
    .option('--json', 'print the decision as JSON')
    .option('--batch', 'read JSON Lines requests on stdin, write one JSON line per input line (format below)')
    .option('--fail-on <decisions>', `exit ${FAIL_ON_EXIT} when any decision is one of these (comma-separated: deny, ask, allow, error)`)
    .addHelpText('after', BATCH_HELP)
    .action(async (tool: string | undefined, input: string | undefined, opts: CheckOptions) => {
      const mode = parseMode(opts.mode);
      const failOn = parseFailOn(opts.failOn);
      const defaults: CheckDefaults = {
        cwd: opts.cwd,
        ...(opts.projectDir !== undefined ? { projectDir: opts.projectDir } : {}),
        ...(opts.home !== undefined ? { home: opts.home } : {}),
        ...(mode !== undefined ? { mode } : {}),
        ...(opts.managedSettings !== undefined ? { managedSettingsPath: opts.managedSettings } : {}),
        flagSettingsFiles: opts.settings,
        cliRules: { allow: opts.allow, deny: opts.deny, ask: opts.ask },
      };
      const toolFor = createCheckToolResolver((m) => process.stderr.write(`toolgate check: warning: ${m}\n`));
      // A batch's engine keeps each context's settings for the lines after it: watched, so a file changed (or a linked
      // cwd retargeted) between two chunks of stdin is read again.
      const watch = opts.batch ? new SettingsWatch() : undefined;
      const engine = new CheckEngine(toolFor, watch ? { ...defaults, onSettingsLoaded: (s) => watch.record(s) } : defaults);
      if (watch) {
        if (tool !== undefined) throw new Error('--batch reads requests from stdin: give no TOOL or INPUT');
        if (await runBatch(engine, watch, failOn)) process.exitCode = FAIL_ON_EXIT;
        return;
      }
      if (tool === undefined) throw new Error("missing TOOL (e.g. toolgate check Bash '{\"command\": \"git status\"}'), or use --batch");
      let parsedInput: unknown = {};
      if (input !== undefined) {
        try {
          parsedInput = JSON.parse(input);
        } catch (error) {
          throw new Error(`INPUT is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      let result;
      try {
        result = await engine.decide({ tool, input: parsedInput });
      } catch (error) {
        if (error instanceof CheckRequestError) {
          process.stderr.write(`toolgate check: ${error.message}\n`);
          // Exit 2: no decision was made (distinct from a usage error's 1); the message is already printed.
          throw new CommanderError(2, 'toolgate.check.noDecision', error.message);
        }
        throw error;
      }
      for (const w of result.warnings) process.stderr.write(`toolgate check: warning: ${w}\n`);
      if (opts.json) {
        const t = result.decision.decisionReason;
        const extra = {
          sourceFile: t?.sourceFile ?? null,
          subcommand: t?.subcommand ?? null,
          message: 'message' in result.decision ? result.decision.message : null,
          suggestions: result.decision.behavior === 'ask' ? (result.decision.suggestions ?? []) : [],
        };
        writeStdout(`${JSON.stringify({ ...result.output, ...extra })}\n`);
      } else {
        writeStdout(`${tool} ${input ?? '{}'}\n${explainDecision(result.decision)}\n`);
      }
      if (failOn.has(result.output.behavior)) process.exitCode = FAIL_ON_EXIT;
    });
}

function parseMode(mode: string | undefined): PermissionMode | undefined {
  if (mode === undefined) return undefined;
  const m = mode === 'manual' ? 'default' : mode;
  if (!(PERMISSION_MODES as readonly string[]).includes(m)) throw new Error(`--mode must be one of ${PERMISSION_MODES.join(', ')}`);
  return m as PermissionMode;
}

function parseFailOn(value: string | undefined): ReadonlySet<FailOn> {
  if (value === undefined) return new Set();
  const names = value.split(',').map((x) => x.trim()).filter((x) => x !== '');
  const bad = names.filter((x) => !(FAIL_ON as readonly string[]).includes(x));
  if (names.length === 0 || bad.length > 0) throw new Error(`--fail-on takes a comma-separated list of ${FAIL_ON.join(', ')}${bad.length > 0 ? ` (not: ${bad.join(', ')})` : ''}`);
  return new Set(names as FailOn[]);
}

/** Answers every line of stdin; true when an answer is one `failOn` names. */
async function runBatch(engine: CheckEngine, watch: SettingsWatch, failOn: ReadonlySet<FailOn>): Promise<boolean> {
  // Chunks, not readline: every line already received is decided, then the answers go out in one write — big writes
  // for a pipe, and an interactive peer still gets each answer as soon as its line arrives.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let failed = false;
  const answers = new BatchAnswers(engine);
  const answer = async (lines: readonly string[]) => {
    // Once per chunk: its lines all arrived before the first is answered, and its answers go out in one write, so a
    // change made while it is answered is one made after it (as the re-checks of remembered answers, check-batch.ts).
    if (watch.changed()) engine.forget();
    const { text: out, kinds } = await answers.answerChunk(lines);
    for (const kind of kinds) if (failOn.has(kind)) failed = true;
    if (out.length > 0 && !process.stdout.write(out)) {
      await new Promise<void>((resolve) => process.stdout.once('drain', () => resolve()));
    }
  };
  for await (const chunk of process.stdin) {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    const cut = pending.lastIndexOf('\n');
    if (cut === -1) continue;
    const lines = pending.slice(0, cut).split('\n');
    pending = pending.slice(cut + 1);
    await answer(lines);
  }
  pending += decoder.end();
  // The text after the last newline is a line only if there is some (input ending in a newline has no empty last line).
  if (pending !== '') await answer([pending]);
  return failed;
}
