/**
 * `checkBashPermission`: deny rules → path denies → ask rules → fail-closed safety checks → write redirects →
 * allow (every subcommand by a rule or as read-only) → passthrough with suggested rules. Pure and synchronous
 * apart from looking up symlinks; the engine applies modes around the result.
 */
import { withFsMemo } from '../observed-fs.js';
import type { DecisionLayer, DecisionTrace, PermissionResult, ToolPermissionContext } from '../../tool/permission-types.js';
import type { BashPermissionDeps, SimpleCommand } from './types.js';
import { analyzeBashCommand } from './analyze.js';
import { bashRules, matchDenyLike, type BashRule } from './rule-set.js';
import { matchCompiled } from './rule-match.js';
import { neverApprovedByPrefix, stripAllowWrappers } from './wrappers.js';
import { findGlobSteering, unsafeScript } from './steering.js';
import type { WordValue } from './words.js';
import { dangerousFlag } from './program-options.js';
import type { MatchWord } from './rule-match.js';
import { collectPathFacts, type PathFacts, type SubcommandFacts } from './path-checks.js';
import { flattenSubcommands } from './read-only.js';
import { suggestionsFor } from './suggestions.js';
import { checkReadDenies, readDenyOpaqueAsk } from './read-deny.js';
import { formatPermissionRule } from '../permission-rule.js';

function trace(layer: DecisionLayer, reason: string, rule?: BashRule, subcommand?: string): DecisionTrace {
  return {
    layer,
    reason,
    ...(rule ? { rule: rule.text, source: rule.rule.source, ...(rule.rule.sourceFile ? { sourceFile: rule.rule.sourceFile } : {}) } : {}),
    ...(subcommand !== undefined ? { subcommand } : {}),
  };
}

/** The rule names whose path rules protect files from writing (Read denies are handled with reads, in read-deny). */
const EDIT_RULE_TOOLS: ReadonlySet<string> = new Set(['Edit', 'Write', 'NotebookEdit', 'MultiEdit']);

const short = (text: string): string => (text.length > 120 ? `${text.slice(0, 117)}...` : text);

function ask(message: string, decisionReason: DecisionTrace): PermissionResult {
  return { behavior: 'ask', message, decisionReason };
}

/**
 * The allow rule that covers a subcommand. A prefix or wildcard rule never covers `find -exec`, `watch …` and the
 * like, nor a dangerous option its own text does not name (`git -c …`, `sort -o`, `npm --prefix …`): `blocked` says
 * which rule matched but did not count, and why.
 */
export function allowRuleFor(sub: SimpleCommand, allow: readonly BashRule[]): { rule?: BashRule; blocked?: string } {
  if (sub.kind !== 'command' && sub.kind !== 'declaration') return {};
  if (sub.strippedWords.length === 0) return {};
  let blocked: string | undefined;
  for (const rule of allow) {
    const compiled = rule.compiled;
    if (compiled === undefined) return { rule };
    if (!matchCompiled(compiled, sub.strippedWords)) continue;
    if (compiled.kind !== 'exact') {
      if (neverApprovedByPrefix(sub.strippedWords)) continue;
      const script = unsafeScript(programWords(sub.strippedWords));
      if (script) {
        blocked ??= `${script}, which a prefix or wildcard rule (${rule.text}) never approves`;
        continue;
      }
      const danger = dangerousFlag(programWords(sub.strippedWords), rule.words);
      if (danger) {
        blocked ??= `${danger.flag} ${danger.what}, which ${rule.text} does not name`;
        continue;
      }
    }
    return { rule };
  }
  return blocked === undefined ? {} : { blocked };
}

/** A `find` whose globs the file system turns into actions (see steering.ts), with the wrappers seen through. */
function findSteering(subs: readonly SimpleCommand[]): { sub: SimpleCommand; reason: string } | undefined {
  for (const sub of subs) {
    if (sub.kind !== 'command') continue;
    const reason = findGlobSteering(stripAllowWrappers(sub.words) as readonly WordValue[]);
    if (reason) return { sub, reason };
  }
  return undefined;
}

/** The words from the program on (kept `VAR=value` assignments left out). */
function programWords(words: readonly MatchWord[]): readonly MatchWord[] {
  let i = 0;
  while (i < words.length - 1 && words[i]!.literal && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.value)) i++;
  return i === 0 ? words : words.slice(i);
}

/** Which subcommands an allow rule covers, and which are neither covered nor read-only. */
export function judgeSubcommands(
  subcommands: readonly SimpleCommand[],
  allow: readonly BashRule[],
  paths: PathFacts,
): { used: { rule: BashRule; sub: SimpleCommand }[]; failing: { sub: SimpleCommand; facts: SubcommandFacts | undefined; blocked?: string }[] } {
  const used: { rule: BashRule; sub: SimpleCommand }[] = [];
  const failing: { sub: SimpleCommand; facts: SubcommandFacts | undefined; blocked?: string }[] = [];
  const judge = (list: readonly SimpleCommand[]): void => {
    for (const sub of list) {
      const { rule, blocked } = allowRuleFor(sub, allow);
      if (rule) {
        used.push({ rule, sub });
        continue;
      }
      if (blocked !== undefined) {
        failing.push({ sub, facts: paths.facts.get(sub), blocked });
        continue;
      }
      if (sub.inner) {
        judge(sub.inner);
        continue;
      }
      const facts = paths.facts.get(sub);
      if (facts?.autoAllowed) continue;
      failing.push({ sub, facts });
    }
  };
  judge(subcommands);
  return { used, failing };
}

/**
 * The narrowest allow rules that would cover this command: one exact rule per subcommand that is neither allowed nor
 * read-only (never a prefix, never `Bash`). Undefined when no set of rules can (an unanalysable command, a
 * non-literal word, a write redirect or a check no allow rule overrides).
 */
export function narrowestBashRules(command: string, ctx: ToolPermissionContext, deps: BashPermissionDeps): string[] | undefined {
  const analysis = analyzeBashCommand(command);
  if (!analysis.ok) return undefined;
  const subs = [...flattenSubcommands(analysis.subcommands)];
  if (subs.some((s) => s.unsafeReason)) return undefined;
  const paths = collectPathFacts(subs, ctx, deps);
  if (paths.deny || paths.critical || paths.foreignConfig || paths.unknownTarget || paths.writeAsk) return undefined;
  const own = deps.ruleToolName ?? 'Bash';
  const { failing } = judgeSubcommands(analysis.subcommands, bashRules(ctx.alwaysAllowRules, own === 'Bash' ? undefined : [own]), paths);
  const out: string[] = [];
  for (const { sub } of failing) {
    if (sub.strippedWords.length === 0 || !sub.strippedWords.every((w) => w.literal)) return undefined;
    const content = sub.strippedWords.map((w) => quoteRuleWord(w.value)).join(' ');
    if (!out.includes(content)) out.push(content);
  }
  return out;
}

/** A word as rule content reads it back: plain words as they are, others single-quoted (so `*` stays literal). */
export function quoteRuleWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) && !word.endsWith(':') ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One check sees one state of the disk, each path's metadata asked once (observed-fs.ts withFsMemo). */
export function checkBashPermission(command: string, ctx: ToolPermissionContext, deps: BashPermissionDeps): PermissionResult {
  return withFsMemo(() => decideBashPermission(command, ctx, deps));
}

function decideBashPermission(command: string, ctx: ToolPermissionContext, deps: BashPermissionDeps): PermissionResult {
  const own = deps.ruleToolName ?? 'Bash';
  const denyNames = own === 'Bash' ? undefined : ['Bash', own];
  const deny = bashRules(ctx.alwaysDenyRules, denyNames);
  const askRules = bashRules(ctx.alwaysAskRules, denyNames);
  const allow = bashRules(ctx.alwaysAllowRules, own === 'Bash' ? undefined : [own]);
  const whole = command.trim();
  const analysis = analyzeBashCommand(command);
  const subs = [...flattenSubcommands(analysis.subcommands)];

  // 1. Deny rules, on every subcommand and every view of it (and on raw pieces when unparsable).
  const denied = matchDenyLike(deny, analysis, whole);
  if (denied.definite) {
    const { rule, subcommand } = denied.definite;
    return { behavior: 'deny', message: `Permission to run "${short(subcommand)}" has been denied by ${rule.text}.`, decisionReason: trace('denyRule', `matches deny rule ${rule.text}`, rule, subcommand) };
  }

  // 1b. Path denies: a redirect writing, or a read-only command reading, a path the engine denies.
  const paths = collectPathFacts(subs, ctx, deps);
  if (paths.deny) {
    const { result, subcommand } = paths.deny;
    const reason = result.decisionReason ?? trace('toolCheck', 'path denied');
    return { behavior: 'deny', message: result.behavior === 'deny' ? result.message : `Denied: ${short(subcommand)}`, decisionReason: { ...reason, subcommand } };
  }

  // 1c. Read deny rules against every path the command could open (only when the context has one).
  const readDeny = checkReadDenies(analysis, subs, ctx, deps);
  if (readDeny?.kind === 'deny') {
    const { result, subcommand } = readDeny;
    const reason = result.decisionReason ?? trace('denyRule', 'path denied');
    return { behavior: 'deny', message: result.behavior === 'deny' ? result.message : `Denied: ${short(subcommand)}`, decisionReason: { ...reason, subcommand } };
  }

  // 2. Ask rules; and what might match a deny or ask rule (a non-literal word, or a construct we cannot see into) asks
  //    like an ask rule, so no mode downgrades a deny into an allow.
  const asked = matchDenyLike(askRules, analysis, whole);
  const unsafe = subs.find((s) => s.unsafeReason);
  const opaqueReason = !analysis.ok ? analysis.reason : unsafe?.unsafeReason;
  const because = opaqueReason !== undefined ? ` (${opaqueReason})` : '';
  if (asked.definite) {
    const { rule, subcommand } = asked.definite;
    return ask(`"${short(subcommand)}" requires approval (${rule.text}).`, trace('askRule', `matches ask rule ${rule.text}`, rule, subcommand));
  }
  const possible = denied.possible ?? asked.possible;
  if (possible) {
    const { rule, subcommand } = possible;
    const kind = possible === denied.possible ? 'deny' : 'ask';
    return ask(
      `"${short(subcommand)}" could match ${kind} rule ${rule.text} once expanded${because}.`,
      trace('askRule', `non-literal words could make this match ${kind} rule ${rule.text}${because}`, rule, subcommand),
    );
  }
  if (readDeny) return ask(readDeny.message, readDeny.trace);
  const contentDeny = deny.find((r) => r.content !== undefined);
  if (opaqueReason !== undefined && contentDeny) {
    const subcommand = unsafe?.text ?? whole;
    return ask(`Cannot rule out deny rule ${contentDeny.text}: ${opaqueReason}.`, trace('askRule', `cannot rule out deny rules: ${opaqueReason}`, contentDeny, subcommand));
  }
  const opaqueRead = opaqueReason !== undefined ? readDenyOpaqueAsk(ctx, opaqueReason, unsafe?.text ?? whole) : undefined;
  if (opaqueRead?.kind === 'ask') return ask(opaqueRead.message, opaqueRead.trace);
  // Writes too: what cannot be seen into may write a path an Edit deny rule protects (an ask no mode passes).
  const editDeny = opaqueReason !== undefined ? ctx.alwaysDenyRules.find((r) => r.ruleValue.ruleContent !== undefined && EDIT_RULE_TOOLS.has(r.ruleValue.toolName)) : undefined;
  if (editDeny) {
    const text = formatPermissionRule(editDeny.ruleValue);
    const reason = `cannot rule out Edit deny ${text}: ${opaqueReason}`;
    return ask(`Cannot rule out deny rule ${text}: ${opaqueReason}.`, { layer: 'askRule', reason, rule: text, source: editDeny.source, ...(editDeny.sourceFile ? { sourceFile: editDeny.sourceFile } : {}), subcommand: unsafe?.text ?? whole });
  }

  // 3. Fail closed on anything we cannot reason about.
  if (!analysis.ok) return ask(`This command needs approval: ${analysis.reason}.`, trace('safetyCheck', analysis.reason));
  if (unsafe) return ask(`"${short(unsafe.text)}" needs approval: ${unsafe.unsafeReason}.`, trace('safetyCheck', unsafe.unsafeReason!, undefined, unsafe.text));
  if (paths.foreignConfig) return ask(`"${short(paths.foreignConfig.subcommand)}" needs approval: ${paths.foreignConfig.reason}.`, trace('safetyCheck', paths.foreignConfig.reason, undefined, paths.foreignConfig.subcommand));
  const steered = findSteering(subs);
  if (steered) {
    const { sub, reason } = steered;
    return ask(`"${short(sub.text)}" needs approval: ${reason}.`, { ...trace('safetyCheck', reason, undefined, sub.text), classifierApprovable: false });
  }
  if (paths.critical) return ask(`"${short(paths.critical.subcommand)}" needs approval: ${paths.critical.reason}.`, { ...trace('safetyCheck', paths.critical.reason, undefined, paths.critical.subcommand), classifierApprovable: false });

  // 4. Output redirections are writes.
  if (paths.unknownTarget) return ask(`"${short(paths.unknownTarget.subcommand)}" needs approval: ${paths.unknownTarget.reason}.`, trace('safetyCheck', paths.unknownTarget.reason, undefined, paths.unknownTarget.subcommand));
  if (paths.writeAsk) {
    const { result, path, subcommand } = paths.writeAsk;
    const reason = result.decisionReason ?? trace('toolCheck', `writes ${path}`);
    const message = result.behavior === 'ask' ? result.message : `"${short(subcommand)}" writes ${path}, which needs permission.`;
    return { behavior: 'ask', message, decisionReason: { ...reason, subcommand }, ...(result.behavior === 'ask' && result.suggestions ? { suggestions: result.suggestions } : {}) };
  }

  // 5. Allow: the whole command by an exact rule, or every subcommand by a rule or as read-only.
  const wholeRule = allow.find((r) => r.trimmed === whole && r.compiled?.kind === 'exact');
  if (wholeRule) return { behavior: 'allow', decisionReason: trace('allowRule', `the whole command matches ${wholeRule.text}`, wholeRule, whole) };
  const { used, failing } = judgeSubcommands(analysis.subcommands, allow, paths);
  if (failing.length === 0) {
    // A write redirect the path check allowed (acceptEdits, an Edit allow rule, bypass) decided as much as the rest.
    const write = paths.writeAllowed;
    const writeNote = write ? `; ${write.result.decisionReason?.reason ?? `writing ${write.path} is allowed`}` : '';
    const first = used[0];
    if (first) {
      const rules = [...new Set(used.map((u) => u.rule.text))].join(', ');
      return { behavior: 'allow', decisionReason: trace('allowRule', `every subcommand is allowed (${rules}) or read-only${writeNote}`, first.rule, first.sub.text) };
    }
    const edit = paths.acceptedEdit;
    if (edit) {
      return { behavior: 'allow', decisionReason: { layer: 'mode', reason: `${edit.reason}${writeNote}`, subcommand: edit.subcommand } };
    }
    if (write) {
      const decided = write.result.decisionReason ?? trace('toolCheck', `writing ${write.path} is allowed`);
      return { behavior: 'allow', decisionReason: { ...decided, reason: `${decided.reason} (redirect in "${short(write.subcommand)}"); the commands themselves are read-only`, subcommand: write.subcommand } };
    }
    return { behavior: 'allow', decisionReason: trace('readOnly', 'every subcommand is read-only') };
  }

  // 6. No opinion: the engine asks (or applies its mode), naming the first subcommand that is not allowed.
  const firstFail = failing[0]!;
  const why = firstFail.blocked ?? firstFail.facts?.reason ?? 'not allowed by a rule';
  return {
    behavior: 'passthrough',
    message: `"${short(firstFail.sub.text)}" requires approval: no allow rule matches it and it is not read-only (${why}).`,
    decisionReason: trace('toolCheck', why, undefined, firstFail.sub.text),
    suggestions: suggestionsFor(failing.map((f) => f.sub.strippedWords)),
  };
}
