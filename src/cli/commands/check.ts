/**
 * `toolgate check` — the policy test kit. One decision:
 *   toolgate check [--cwd DIR] [--mode MODE] [--settings FILE] [--allow RULE]… [--deny RULE]… [--ask RULE]… TOOL 'INPUT_JSON'
 * prints the decision and its trace in words (`--json`: as JSON). `--batch` reads JSON Lines on stdin and writes one
 * JSON line per request, in order; a bad line gets `{"error": "…"}` and the batch goes on. Nothing is executed.
 */
import { StringDecoder } from 'node:string_decoder';
import { CommanderError, type Command } from 'commander';
import { PERMISSION_MODES, type PermissionMode } from '../../tool/permission-types.js';
import { explainDecision } from '../../permissions/explain.js';
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
}

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
    .option('--batch', 'read JSON Lines requests on stdin, write one JSON line per request')
    .action(async (tool: string | undefined, input: string | undefined, opts: CheckOptions) => {
      const mode = parseMode(opts.mode);
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
      const engine = new CheckEngine(toolFor, defaults);
      if (opts.batch) {
        if (tool !== undefined) throw new Error('--batch reads requests from stdin: give no TOOL or INPUT');
        await runBatch(engine);
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
        process.stdout.write(`${JSON.stringify({ ...result.output, ...extra })}\n`);
      } else {
        process.stdout.write(`${tool} ${input ?? '{}'}\n${explainDecision(result.decision)}\n`);
      }
    });
}

function parseMode(mode: string | undefined): PermissionMode | undefined {
  if (mode === undefined) return undefined;
  const m = mode === 'manual' ? 'default' : mode;
  if (!(PERMISSION_MODES as readonly string[]).includes(m)) throw new Error(`--mode must be one of ${PERMISSION_MODES.join(', ')}`);
  return m as PermissionMode;
}

async function runBatch(engine: CheckEngine): Promise<void> {
  // Chunks, not readline: every line already received is decided, then the answers go out in one write — big writes
  // for a pipe, and an interactive peer still gets each answer as soon as its line arrives.
  const decoder = new StringDecoder('utf8');
  let pending = '';
  const answer = async (lines: readonly string[]) => {
    let out = '';
    for (const raw of lines) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') continue;
      out += `${JSON.stringify(await decideLine(engine, line))}\n`;
    }
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
  await answer([pending]);
}

async function decideLine(engine: CheckEngine, line: string): Promise<unknown> {
  let request: unknown;
  try {
    request = JSON.parse(line);
  } catch (error) {
    return { error: `invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  try {
    return (await engine.decide(request, { fromJson: true })).output;
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
