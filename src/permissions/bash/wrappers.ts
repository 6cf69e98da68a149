/**
 * Seeing through commands that run other commands. Two strengths:
 *  - allow stripping (documented, precise): `timeout time nice nohup stdbuf command builtin noglob` and bare
 *    `xargs`, so `timeout 30 npm test` is judged as `npm test` by allow rules;
 *  - deny views (aggressive): also `env sudo watch ionice setsid flock exec …`, every plausible start of the wrapped
 *    command, a path's basename (`/bin/rm`), git's global options, and code strings (`bash -c '…'`, `eval`, `watch`,
 *    `find -exec`, `trap`) so a deny rule is not dodged by a wrapper.
 */
import type { MatchWord } from './rule-match.js';
import { GLOBAL_OPTIONS, startsAfterOptions, syntaxOf } from './program-options.js';
import { READ_ONLY_SPECS } from './read-only-specs.js';
import { fishCode, OTHER_SHELLS, otherShellCode } from './shell-options.js';

export type Words = readonly MatchWord[];

const lit = (w: MatchWord | undefined): string | undefined => (w && w.literal ? w.value : undefined);

/** Options of allow-stripped wrappers that take a separate value. */
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  timeout: new Set(['-s', '--signal', '-k', '--kill-after']),
  nice: new Set(['-n', '--adjustment']),
  stdbuf: new Set(['-i', '-o', '-e', '--input', '--output', '--error']),
};
const FLAG_OPTIONS: Record<string, ReadonlySet<string>> = {
  timeout: new Set(['--preserve-status', '--foreground', '-v', '--verbose']),
  time: new Set(['-p']),
  command: new Set(['-p']),
  nohup: new Set(),
  builtin: new Set(),
  noglob: new Set(),
  nice: new Set(),
  stdbuf: new Set(),
};

/**
 * Strip one allow-level wrapper. Returns the index of the wrapped command, or -1 when `words[0]` is not a wrapper
 * this way (unknown option, `command -v`, `xargs -n1`, nothing after it).
 */
function stripOneAllowWrapper(words: Words): number {
  const name = lit(words[0]);
  if (name === undefined) return -1;
  if (name === 'xargs') {
    const next = words[1];
    return next && !(next.literal && next.value.startsWith('-')) ? 1 : -1;
  }
  const flags = FLAG_OPTIONS[name];
  if (!flags) return -1;
  const valued = VALUE_OPTIONS[name] ?? new Set<string>();
  let i = 1;
  for (; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) break;
    const v = w.value;
    if (v === '--') {
      i++;
      break;
    }
    if (!v.startsWith('-') || v === '-') break;
    if (flags.has(v)) continue;
    const eq = v.indexOf('=');
    if (v.startsWith('--') && eq > 0 && valued.has(v.slice(0, eq))) continue;
    if (valued.has(v)) {
      i++;
      continue;
    }
    // Attached short values: `-n5`, `-oL`, and nice's `-10`.
    if (/^-[a-zA-Z]./.test(v) && valued.has(v.slice(0, 2))) continue;
    if (name === 'nice' && /^-\d+$/.test(v)) continue;
    return -1;
  }
  if (name === 'timeout') {
    // The duration comes before the command.
    if (i >= words.length) return -1;
    i++;
  }
  return i < words.length ? i : -1;
}

/** The words allow rules are matched against: wrappers peeled while they are precisely understood. */
export function stripAllowWrappers(words: Words): Words {
  let current = words;
  for (let depth = 0; depth < 8; depth++) {
    const i = stripOneAllowWrapper(current);
    if (i <= 0) return current;
    current = current.slice(i);
  }
  return current;
}

/** Commands that run the rest of their arguments as a command (options skipped by trying every start). */
const DENY_WRAPPERS = new Set([
  'timeout', 'time', 'nice', 'nohup', 'stdbuf', 'command', 'builtin', 'noglob', 'xargs',
  'env', 'sudo', 'doas', 'pkexec', 'runuser', 'watch', 'ionice', 'setsid', 'flock', 'exec', 'chroot', 'taskset',
  'chrt', 'numactl', 'unshare', 'nsenter', 'strace', 'ltrace', 'unbuffer', 'coproc', 'busybox', 'caffeinate',
  'firejail', 'proxychains', 'proxychains4', 'torsocks', 'nocache', 'catchsegv', 'faketime', 'cgexec', 'sg',
]);

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'rbash', 'fish']);

/** `bash -lc 'x'` → index of the code word; -1 when there is no `-c`; -2 when `-c` has no code after it. */
export function shellCodeIndex(words: Words): number {
  let hasC = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) return hasC ? i : -1;
    const v = w.value;
    if (v === '--' || v === '-') return hasC ? (i + 1 < words.length ? i + 1 : -2) : -1;
    if (/^[-+]o$/.test(v) || v === '-O' || v === '+O' || v === '--rcfile' || v === '--init-file') {
      i++;
      continue;
    }
    if (v.startsWith('--')) continue;
    if (/^[-+][A-Za-z]+$/.test(v)) {
      if (v.startsWith('-') && v.includes('c')) hasC = true;
      continue;
    }
    return hasC ? i : -1;
  }
  return hasC ? -2 : -1;
}

export interface CodeString {
  readonly code: string;
  readonly via: string;
}

export interface DenyViewResult {
  readonly views: Words[];
  /** Literal code strings these words run (`bash -c`, `eval`, `watch`, `trap`, `su -c`): analyse them too. */
  readonly code: CodeString[];
  /** A code string that is not literal: nothing can be said about it. */
  readonly opaqueCode?: string;
}

function joinLiteral(words: Words): string | undefined {
  if (!words.every((w) => w.literal)) return undefined;
  return words.map((w) => w.value).join(' ');
}

/** Every argv view a deny rule should be tried against, plus code strings to analyse recursively. */
/** Command names whose arguments may hold another command (everything else is its own only view). */
const SPECIAL = new Set([...DENY_WRAPPERS, ...SHELLS, ...OTHER_SHELLS, ...Object.keys(GLOBAL_OPTIONS), 'eval', 'watch', 'trap', 'su', 'script', 'flock', 'runuser', 'env', 'find', 'fd', 'fdfind', 'mapfile', 'readarray', 'alias']);

export function denyViews(words: Words): DenyViewResult {
  const first = words[0];
  if (first === undefined) return { views: [], code: [] };
  if (first.literal && !SPECIAL.has(first.value) && !first.value.includes('/')) {
    // Only options before the first operand can hide a subcommand.
    const second = words[1];
    if (second === undefined || (second.literal && !second.value.startsWith('-')) || Object.hasOwn(READ_ONLY_SPECS, first.value)) return { views: [words], code: [] };
  }
  const views: Words[] = [];
  const code: CodeString[] = [];
  let opaqueCode: string | undefined;
  const seen = new Set<Words>();

  const visit = (w: Words, depth: number): void => {
    if (w.length === 0 || depth > 6 || seen.has(w) || views.length >= 64) return;
    seen.add(w);
    views.push(w);
    const name = lit(w[0]);
    if (name === undefined) return;
    if (name.includes('/')) {
      const base = name.slice(name.lastIndexOf('/') + 1);
      if (base) visit([{ value: base, literal: true }, ...w.slice(1)], depth + 1);
      return;
    }
    // Global options before the subcommand (`docker --context prod run`, `kubectl -n prod delete`): also seen
    // without them, from every place the subcommand may start when an unknown option leaves it open.
    // A program without a table (`pulumi`-like CLIs not listed yet): every unknown option read both ways.
    const starts =
      Object.hasOwn(GLOBAL_OPTIONS, name) || !(SPECIAL.has(name) || Object.hasOwn(READ_ONLY_SPECS, name)) ? startsAfterOptions(w, syntaxOf(name), true) : undefined;
    if (starts) for (const at of starts) if (at > 1) visit([w[0]!, ...w.slice(at)], depth + 1);
    if (DENY_WRAPPERS.has(name)) {
      for (let i = 1; i < w.length; i++) {
        const v = w[i]!;
        if (v.literal && (v.value.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(v.value))) continue;
        visit(w.slice(i), depth + 1);
      }
    }
    const addCode = (word: MatchWord | undefined, via: string): void => {
      if (!word) return;
      if (word.literal) code.push({ code: word.value, via });
      else opaqueCode ??= `${via} with a non-literal command string`;
    };
    if (name === 'fish') {
      for (const c of fishCode(w)) addCode(c, 'fish -c');
    } else if (OTHER_SHELLS.has(name)) {
      for (const c of otherShellCode(w)) addCode(c, `${name} -c`);
    } else if (SHELLS.has(name)) {
      const at = shellCodeIndex(w);
      if (at >= 0) addCode(w[at], `${name} -c`);
      // `xargs sh -c`: the code is appended from elsewhere.
      else if (at === -2) opaqueCode ??= `${name} -c with its command string supplied at run time`;
    } else if (name === 'eval' || name === 'watch') {
      let start = 1;
      if (name === 'watch') {
        // watch joins its arguments into a `sh -c` string (unless -x): skip its options and their values.
        while (start < w.length && w[start]!.literal && w[start]!.value.startsWith('-')) {
          start += /^(-n|--interval|-d|--differences|-q|--equexit)$/.test(w[start]!.value) && !w[start]!.value.includes('=') ? 2 : 1;
        }
      }
      const rest = w.slice(start);
      const joined = joinLiteral(rest);
      if (joined !== undefined) code.push({ code: joined, via: name });
      else if (rest.length > 0) opaqueCode ??= `${name} with non-literal arguments`;
    } else if (name === 'trap') {
      const first = w[1];
      if (first && !(first.literal && first.value.startsWith('-'))) addCode(first, 'trap');
    } else if (name === 'su' || name === 'script' || name === 'flock' || name === 'runuser') {
      for (let i = 1; i < w.length; i++) {
        const x = w[i]!;
        if (!x.literal) continue;
        if (/^-[a-zA-Z]*c$/.test(x.value) || x.value === '--command') addCode(w[i + 1], `${name} -c`);
        else if (x.value.startsWith('--command=')) code.push({ code: x.value.slice('--command='.length), via: `${name} -c` });
      }
    } else if (name === 'alias') {
      // `shopt -s expand_aliases` makes a defined alias run: its value is code.
      for (const x of w.slice(1)) {
        const eq = x.value.indexOf('=');
        if (eq > 0) addCode(x.literal ? { value: x.value.slice(eq + 1), literal: true } : x, 'alias');
      }
    } else if (name === 'mapfile' || name === 'readarray') {
      const c = w.findIndex((x, i) => i > 0 && x.literal && x.value === '-C');
      if (c > 0) addCode(w[c + 1], `${name} -C`);
    } else if (name === 'env') {
      const s = w.findIndex((x, i) => i > 0 && x.literal && (x.value === '-S' || x.value === '--split-string'));
      if (s > 0) addCode(w[s + 1], 'env -S');
    } else if (name === 'find' || name === 'fd' || name === 'fdfind') {
      for (let i = 1; i < w.length; i++) {
        const v = lit(w[i]);
        const isExec = name === 'find' ? /^-(exec|execdir|ok|okdir)$/.test(v ?? '') : /^(-x|--exec|-X|--exec-batch)$/.test(v ?? '');
        if (!isExec) continue;
        let end = i + 1;
        while (end < w.length && !(w[end]!.literal && (w[end]!.value === ';' || w[end]!.value === '+'))) end++;
        visit(w.slice(i + 1, end), depth + 1);
        i = end;
      }
    }
  };
  visit(words, 0);
  return { views, code, opaqueCode };
}

/** Commands whose prefix/wildcard allow rules must never approve (documented: they run or hide other commands). */
export function neverApprovedByPrefix(words: Words): boolean {
  const name = lit(words[0]);
  if (name === 'watch' || name === 'setsid' || name === 'ionice' || name === 'flock') return true;
  if (name === 'find') return words.some((w) => w.literal && /^-(exec|execdir|ok|okdir|delete|fprint|fprint0|fprintf|fls)$/.test(w.value));
  if (name === 'fd' || name === 'fdfind') return words.some((w) => w.literal && /^(-x|--exec|-X|--exec-batch)$/.test(w.value));
  return false;
}
