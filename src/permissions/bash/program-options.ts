/**
 * Data tables of common command-line programs, as the permission checks need them:
 *  - GLOBAL_OPTIONS: the options a multi-level CLI accepts before its subcommand, with and without values, so
 *    `docker --context prod run …` is also seen as `docker run …` by deny and ask rules (issue 10, class 1);
 *  - DANGEROUS_FLAGS: options that turn an otherwise allowed command into code execution, a write or an action on
 *    another target (`git -c core.pager=sh`, `npm --prefix /elsewhere`, `sort -o`, `rg --pre`, `ssh -o
 *    ProxyCommand=…`): a prefix or wildcard allow rule never covers them unless the rule's own text names the flag
 *    (class 2).
 * Tables, so they grow by adding rows.
 */

export interface GlobalOptions {
  /** Options that take the next word as their value (also accepted as `--opt=value` and, short, `-ovalue`). */
  readonly valued: ReadonlySet<string>;
  /** Options that take no value. Any other option makes the subcommand uncertain: every candidate is tried. */
  readonly flags: ReadonlySet<string>;
}

const s = (...xs: string[]): ReadonlySet<string> => new Set(xs);
const none = s();

const NPM_VALUED = s('--registry', '--prefix', '-C', '--userconfig', '--globalconfig', '--cache', '--loglevel', '-w', '--workspace', '--otp', '--tag', '--scope', '--node-options', '--script-shell', '--cwd', '--dir', '--filter', '-F', '--config');
const NPM_FLAGS = s('-g', '--global', '-s', '--silent', '-q', '--quiet', '-d', '--verbose', '-y', '--yes', '--no', '--json', '--force', '-f', '--offline', '--prefer-offline', '--ws', '--workspaces', '-r', '--recursive', '--color', '--no-color', '--dry-run', '-v', '--version', '-h', '--help');
const DOCKER_VALUED = s('--context', '-c', '-H', '--host', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey');
const DOCKER_FLAGS = s('-D', '--debug', '--tls', '--tlsverify', '-v', '--version', '-h', '--help');
const KUBE_VALUED = s('-n', '--namespace', '--context', '--cluster', '--kubeconfig', '-s', '--server', '--user', '--token', '--as', '--as-group', '--as-uid', '--certificate-authority', '--client-certificate', '--client-key', '--request-timeout', '-v', '--v', '--cache-dir', '--tls-server-name', '--password', '--username', '--profile', '--profile-output', '--log-dir', '--log-file', '--match-server-version');
const KUBE_FLAGS = s('--insecure-skip-tls-verify', '--warnings-as-errors', '--disable-compression', '-h', '--help', '-A', '--all-namespaces');

export const GLOBAL_OPTIONS: Readonly<Record<string, GlobalOptions>> = {
  git: {
    valued: s('-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env', '--super-prefix', '--list-cmds', '--attr-source'),
    flags: s('--no-pager', '-P', '-p', '--paginate', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--bare', '--no-lazy-fetch', '--no-advice', '--html-path', '--man-path', '--info-path', '--version', '--help'),
  },
  npm: { valued: NPM_VALUED, flags: NPM_FLAGS },
  pnpm: { valued: NPM_VALUED, flags: NPM_FLAGS },
  yarn: { valued: NPM_VALUED, flags: NPM_FLAGS },
  npx: { valued: s('-p', '--package', '-c', '--call', '--registry', '--prefix', '--userconfig', '--cache', '-w', '--workspace'), flags: s('-y', '--yes', '--no', '-q', '--quiet', '--no-install', '--ignore-existing') },
  bun: { valued: s('--cwd', '-c', '--config', '--env-file', '--preload', '-r'), flags: s('--silent', '--bun', '--watch', '--hot', '--smol', '-v', '--version') },
  docker: { valued: DOCKER_VALUED, flags: DOCKER_FLAGS },
  podman: { valued: s(...DOCKER_VALUED, '--connection', '--url', '--identity', '--root', '--runroot', '--storage-driver', '--cgroup-manager', '--events-backend', '--runtime', '--tmpdir', '--module', '--network-config-dir'), flags: s(...DOCKER_FLAGS, '--remote', '-r', '--syslog') },
  kubectl: { valued: KUBE_VALUED, flags: KUBE_FLAGS },
  oc: { valued: KUBE_VALUED, flags: KUBE_FLAGS },
  helm: { valued: s('-n', '--namespace', '--kube-context', '--kubeconfig', '--kube-apiserver', '--kube-as-user', '--kube-as-group', '--kube-token', '--kube-ca-file', '--registry-config', '--repository-cache', '--repository-config', '--burst-limit', '--qps', '--kube-tls-server-name'), flags: s('--debug', '--kube-insecure-skip-tls-verify', '-h', '--help') },
  cargo: { valued: s('--config', '-Z', '--color', '-C', '--manifest-path', '--target-dir', '--explain'), flags: s('-v', '-vv', '--verbose', '-q', '--quiet', '--frozen', '--locked', '--offline', '-V', '--version', '--list', '-h', '--help') },
  go: { valued: s('-C'), flags: none },
  pip: { valued: s('--python', '--log', '--proxy', '--retries', '--timeout', '--exists-action', '--trusted-host', '--cert', '--client-cert', '--cache-dir', '--use-feature', '--use-deprecated', '--progress-bar', '-i', '--index-url', '--extra-index-url'), flags: s('-v', '--verbose', '-q', '--quiet', '--isolated', '--require-virtualenv', '--no-input', '--no-cache-dir', '--disable-pip-version-check', '--no-color', '--debug', '-V', '--version', '-h', '--help') },
  pip3: { valued: s('--python', '--log', '--proxy', '--retries', '--timeout', '--cache-dir', '-i', '--index-url', '--extra-index-url', '--trusted-host', '--cert'), flags: s('-v', '-q', '--isolated', '--no-input', '--no-cache-dir', '--disable-pip-version-check') },
  uv: { valued: s('--directory', '--project', '--config-file', '--cache-dir', '--python', '-p', '--color', '--index-url', '--extra-index-url', '--default-index', '--index'), flags: s('-q', '--quiet', '-v', '--verbose', '--no-cache', '-n', '--offline', '--no-progress', '--native-tls', '--no-config', '--preview', '--frozen', '--locked') },
  poetry: { valued: s('-C', '--directory', '-P', '--project'), flags: s('-q', '--quiet', '-v', '-vv', '-vvv', '--verbose', '-n', '--no-interaction', '--no-ansi', '--ansi', '--no-plugins', '--no-cache', '-h', '--help', '-V', '--version') },
  gh: { valued: s('-R', '--repo', '--hostname'), flags: s('--help', '--version') },
  terraform: { valued: s('-chdir'), flags: s('-help', '-version') },
  tofu: { valued: s('-chdir'), flags: s('-help', '-version') },
  aws: { valued: s('--profile', '--region', '--endpoint-url', '--output', '--query', '--cli-read-timeout', '--cli-connect-timeout', '--ca-bundle', '--color', '--cli-binary-format'), flags: s('--debug', '--no-verify-ssl', '--no-paginate', '--no-sign-request', '--no-cli-pager', '--cli-auto-prompt', '--no-cli-auto-prompt') },
  gcloud: { valued: s('--project', '--account', '--configuration', '--billing-project', '--impersonate-service-account', '--verbosity', '--format', '--flags-file', '--flatten', '--access-token-file', '--trace-token'), flags: s('--quiet', '-q', '--log-http', '--user-output-enabled', '--no-user-output-enabled', '-h', '--help') },
  az: { valued: s('--subscription', '--output', '-o', '--query', '--only-show-errors'), flags: s('--debug', '--verbose', '-h', '--help') },
  systemctl: { valued: s('-H', '--host', '-M', '--machine', '-t', '--type', '-p', '--property', '-s', '--signal', '--kill-whom', '--root', '-n', '--lines', '-o', '--output', '--state', '--job-mode', '--what', '--timestamp', '--image', '--drop-in', '--preset-mode', '--boot-loader-entry', '--reboot-argument'), flags: s('--user', '--system', '--global', '-a', '--all', '-l', '--full', '-q', '--quiet', '--no-block', '--no-wall', '--no-reload', '--no-ask-password', '--no-pager', '--no-legend', '-f', '--force', '--now', '-i', '--ignore-inhibitors', '--dry-run', '-r', '--recursive', '--runtime', '--failed', '--show-types', '--wait') },
  apt: { valued: s('-o', '--option', '-c', '--config-file', '-t', '--target-release'), flags: s('-y', '--yes', '--assume-yes', '-q', '--quiet', '-qq', '-s', '--simulate', '--dry-run', '--no-install-recommends', '--install-suggests', '-f', '--fix-broken', '--reinstall', '--purge', '-h', '--help', '-v', '--version') },
  'apt-get': { valued: s('-o', '--option', '-c', '--config-file', '-t', '--target-release'), flags: s('-y', '--yes', '--assume-yes', '-q', '-qq', '--quiet', '-s', '--simulate', '--dry-run', '--no-install-recommends', '-f', '--fix-broken', '--reinstall', '--purge') },
  brew: { valued: none, flags: s('-v', '--verbose', '-d', '--debug', '-q', '--quiet') },
  make: { valued: s('-C', '--directory', '-f', '--file', '--makefile', '-I', '--include-dir', '-j', '--jobs', '-l', '--load-average', '-o', '--old-file', '-W', '--what-if', '--new-file', '--assume-new', '--eval', '-O', '--output-sync'), flags: s('-s', '--silent', '-k', '--keep-going', '-n', '--dry-run', '-B', '--always-make', '-i', '-e', '-r', '-R', '-w', '--no-print-directory', '-q', '--question') },
  dotnet: { valued: none, flags: s('-d', '--diagnostics', '-h', '--help', '--info', '--version') },
  mvn: { valued: s('-f', '--file', '-s', '--settings', '-gs', '--global-settings', '-P', '--activate-profiles', '-pl', '--projects', '-T', '--threads', '-D'), flags: s('-B', '--batch-mode', '-q', '--quiet', '-X', '--debug', '-e', '--errors', '-o', '--offline', '-U', '-N', '-am', '-amd') },
  gradle: { valued: s('-p', '--project-dir', '-b', '--build-file', '-c', '--settings-file', '-g', '--gradle-user-home', '-D', '-P', '-I', '--init-script'), flags: s('-q', '--quiet', '-i', '--info', '-d', '--debug', '-s', '--stacktrace', '--offline', '--daemon', '--no-daemon', '--parallel', '--continue') },
};
(GLOBAL_OPTIONS as Record<string, GlobalOptions>)['./gradlew'] = GLOBAL_OPTIONS.gradle!;
(GLOBAL_OPTIONS as Record<string, GlobalOptions>).gradlew = GLOBAL_OPTIONS.gradle!;

/**
 * Where the subcommand may start: one index when every global option before it is known, several when an unknown
 * or non-literal option leaves open whether it took the next word as its value (deny rules try every candidate).
 * Undefined for programs without a table; empty when there is no subcommand.
 */
export function subcommandStarts(name: string, words: readonly { readonly value: string; readonly literal: boolean }[]): number[] | undefined {
  const table = Object.hasOwn(GLOBAL_OPTIONS, name) ? GLOBAL_OPTIONS[name] : undefined;
  if (table === undefined) return undefined;
  const starts: number[] = [];
  const isOption = (w: { value: string; literal: boolean } | undefined) => w !== undefined && (!w.literal || (w.value.startsWith('-') && w.value !== '-'));
  let i = 1;
  while (i < words.length) {
    const w = words[i]!;
    const v = w.value;
    if (w.literal && v === '--') {
      if (i + 1 < words.length) starts.push(i + 1);
      break;
    }
    if (!isOption(w)) {
      starts.push(i);
      break;
    }
    if (w.literal) {
      const eq = v.indexOf('=');
      const opt = v.startsWith('--') && eq > 0 ? v.slice(0, eq) : v;
      if (table.flags.has(opt) || (eq > 0 && table.valued.has(opt)) || (/^-[A-Za-z]./.test(v) && !v.startsWith('--') && table.valued.has(v.slice(0, 2)))) {
        i++;
        continue;
      }
      if (table.valued.has(opt)) {
        i += 2;
        continue;
      }
    }
    // Unknown (or unreadable): a flag, so the next word is the subcommand — or an option with a value, so the
    // search goes on after it.
    if (i + 1 < words.length && !isOption(words[i + 1])) {
      starts.push(i + 1);
      i += 2;
    } else {
      i++;
    }
  }
  return [...new Set(starts)];
}

/** A dangerous option and what it does (for the message). */
interface Danger {
  readonly flag: string;
  readonly what: string;
}

interface ProgramDangers {
  /** Anywhere in the arguments (git: before the subcommand only). */
  readonly global?: readonly Danger[];
  /** After a given subcommand. */
  readonly sub?: Readonly<Record<string, readonly Danger[]>>;
  /** Options only before the subcommand count (git's global options mean something else after it). */
  readonly globalBeforeSubcommand?: boolean;
}

const d = (what: string, ...flags: string[]): Danger[] => flags.map((flag) => ({ flag, what }));
const RUNS = 'runs a program';
const WRITES = 'writes a file';
const ELSEWHERE = 'acts on another target';
const CONFIG = 'loads other configuration';

const NPM_DANGERS: ProgramDangers = {
  global: [...d(ELSEWHERE, '--prefix', '-C', '--cwd', '--dir', '--registry', '-g', '--global'), ...d(CONFIG, '--userconfig', '--globalconfig'), ...d(RUNS, '--script-shell', '--node-options')],
};

const RUN_DANGERS = [...d(RUNS, '--privileged', '--pid', '--cap-add', '--device', '--security-opt', '--userns'), ...d(WRITES, '-v', '--volume', '--mount')];
const CONTAINER_RUN: Readonly<Record<string, readonly Danger[]>> = { run: RUN_DANGERS, create: RUN_DANGERS, exec: d(RUNS, '--privileged') };

export const DANGEROUS_FLAGS: Readonly<Record<string, ProgramDangers>> = {
  git: {
    globalBeforeSubcommand: true,
    global: [...d(RUNS, '-c', '--config-env', '--exec-path'), ...d(ELSEWHERE, '--git-dir', '--work-tree', '-C', '--namespace', '--super-prefix')],
    sub: {
      '*': [...d(RUNS, '--upload-pack', '--receive-pack', '--exec', '--textconv', '--ext-diff', '--open-files-in-pager', '--template'), ...d(WRITES, '--output', '--output-directory')],
      fetch: d(RUNS, '-u'),
      pull: d(RUNS, '-u'),
      'ls-remote': d(RUNS, '-u'),
      archive: d(RUNS, '-u'),
      'format-patch': d(WRITES, '-o'),
      rebase: d(RUNS, '-x', '--exec'),
      bisect: d(RUNS, 'run'),
      submodule: d(RUNS, 'foreach'),
      difftool: d(RUNS, '-x', '--extcmd', '-t', '--tool'),
      mergetool: d(RUNS, '-t', '--tool'),
      'filter-branch': d(RUNS, '--tree-filter', '--index-filter', '--msg-filter', '--env-filter', '--commit-filter', '--parent-filter', '--tag-name-filter'),
      clone: [...d(CONFIG, '-c', '--config'), ...d(RUNS, '-u')],
      grep: d(RUNS, '-O'),
    },
  },
  npm: NPM_DANGERS,
  pnpm: NPM_DANGERS,
  yarn: NPM_DANGERS,
  npx: { global: [...d(RUNS, '-c', '--call', '-p', '--package'), ...d(ELSEWHERE, '--prefix', '--registry')] },
  bun: { global: [...d(ELSEWHERE, '--cwd'), ...d(RUNS, '--preload', '-r', '--eval', '-e', '--print')] },
  sort: { global: [...d(WRITES, '-o', '--output'), ...d(RUNS, '--compress-program')] },
  find: { global: [...d(RUNS, '-exec', '-execdir', '-ok', '-okdir'), ...d(WRITES, '-delete', '-fprint', '-fprint0', '-fprintf', '-fls')] },
  fd: { global: d(RUNS, '-x', '--exec', '-X', '--exec-batch') },
  fdfind: { global: d(RUNS, '-x', '--exec', '-X', '--exec-batch') },
  rg: { global: d(RUNS, '--pre', '--hostname-bin', '-z', '--search-zip') },
  tar: { global: [...d(RUNS, '--to-command', '-I', '--use-compress-program', '--checkpoint-action', '--info-script', '-F', '--new-volume-script', '--rsh-command', '--rmt-command'), ...d(ELSEWHERE, '-C', '--directory', '-T', '--files-from')] },
  ssh: { global: [...d(RUNS, '-o', '-F'), ...d(ELSEWHERE, '-J', '-W', '-L', '-R', '-D')] },
  scp: { global: [...d(RUNS, '-o', '-F', '-S'), ...d(ELSEWHERE, '-J')] },
  sftp: { global: d(RUNS, '-o', '-F', '-S', '-D') },
  rsync: { global: [...d(RUNS, '-e', '--rsh', '--rsync-path'), ...d(ELSEWHERE, '--files-from', '--include-from', '--exclude-from')] },
  curl: { global: [...d(WRITES, '-o', '--output', '-O', '--remote-name', '--output-dir', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--libcurl'), ...d(CONFIG, '-K', '--config'), ...d(ELSEWHERE, '-T', '--upload-file', '-F', '--form', '-d', '--data', '--data-binary', '--data-raw', '--data-urlencode', '--json')] },
  wget: { global: [...d(WRITES, '-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output'), ...d(RUNS, '-e', '--execute'), ...d(CONFIG, '--config'), ...d(ELSEWHERE, '--post-file', '--body-file', '-i', '--input-file')] },
  sed: { global: [...d(WRITES, '-i', '--in-place'), ...d(RUNS, '-f', '--file')] },
  less: { global: d(RUNS, '+*', '-k', '--lesskey-file', '--lesskey-src') },
  more: { global: d(RUNS, '+*') },
  man: { global: d(RUNS, '-P', '--pager', '-H', '--html', '-l', '--local-file') },
  vi: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  vim: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  nvim: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u', '-l') },
  view: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  emacs: { global: d(RUNS, '--eval', '-l', '--load', '-f', '--funcall', '--script', '-x') },
  nano: { global: d(RUNS, '--rcfile', '-f') },
  docker: { globalBeforeSubcommand: true, global: d(ELSEWHERE, '--context', '-c', '-H', '--host', '--config'), sub: CONTAINER_RUN },
  podman: { globalBeforeSubcommand: true, global: d(ELSEWHERE, '--context', '-c', '-H', '--host', '--connection', '--url', '--root'), sub: CONTAINER_RUN },
  kubectl: { global: d(ELSEWHERE, '--context', '--kubeconfig', '--cluster', '-s', '--server', '--token', '--as', '--as-group', '--user') },
  oc: { global: d(ELSEWHERE, '--context', '--kubeconfig', '--cluster', '-s', '--server', '--token', '--as', '--user') },
  helm: { global: [...d(ELSEWHERE, '--kube-context', '--kubeconfig', '--kube-apiserver', '--kube-token', '--kube-as-user'), ...d(RUNS, '--post-renderer')] },
  terraform: { global: d(ELSEWHERE, '-chdir') },
  tofu: { global: d(ELSEWHERE, '-chdir') },
  cargo: { global: [...d(CONFIG, '--config', '-Z'), ...d(ELSEWHERE, '--manifest-path', '-C')] },
  go: { global: [...d(RUNS, '-toolexec', '-exec', '-overlay'), ...d(ELSEWHERE, '-C', '-modfile')] },
  make: { global: [...d(ELSEWHERE, '-C', '--directory'), ...d(RUNS, '-f', '--file', '--makefile', '--eval', '-E', '-I', '--include-dir')] },
  pip: { global: [...d(ELSEWHERE, '-i', '--index-url', '--extra-index-url', '--target', '-t', '--prefix', '--root', '--python'), ...d(CONFIG, '--config-settings', '-C')] },
  pip3: { global: d(ELSEWHERE, '-i', '--index-url', '--extra-index-url', '--target', '-t', '--prefix', '--root', '--python') },
  uv: { global: [...d(ELSEWHERE, '--directory', '--project', '--index-url', '--extra-index-url', '--index', '--default-index'), ...d(CONFIG, '--config-file')] },
  poetry: { global: d(ELSEWHERE, '-C', '--directory', '-P', '--project') },
  gh: { global: d(ELSEWHERE, '-R', '--repo', '--hostname') },
  aws: { global: [...d(ELSEWHERE, '--profile', '--endpoint-url', '--region'), ...d(CONFIG, '--ca-bundle')] },
  gcloud: { global: [...d(ELSEWHERE, '--project', '--account', '--configuration', '--impersonate-service-account'), ...d(CONFIG, '--flags-file')] },
  az: { global: d(ELSEWHERE, '--subscription') },
  systemctl: { global: d(ELSEWHERE, '-H', '--host', '-M', '--machine', '--root') },
  apt: { global: d(RUNS, '-o', '--option', '-c', '--config-file') },
  'apt-get': { global: d(RUNS, '-o', '--option', '-c', '--config-file') },
  zip: { global: d(RUNS, '-TT', '--unzip-command') },
  unzip: { global: d(ELSEWHERE, '-d') },
  patch: { global: d(ELSEWHERE, '-d', '--directory', '-o', '--output') },
};

/** Does a word carry this option (`--opt`, `--opt=v`, `-o`, `-ovalue`, a `-xo` cluster, `+cmd` for `+*`)? */
function wordHasFlag(word: string, flag: string): boolean {
  if (flag === '+*') return word.length > 1 && word.startsWith('+');
  if (word === flag) return true;
  if (flag.startsWith('--')) return word.startsWith(`${flag}=`);
  if (/^-[A-Za-z0-9]$/.test(flag)) {
    if (!/^-[A-Za-z0-9]/.test(word)) return false;
    // The option with its value attached (`-ofile`), or inside a cluster of single-letter options (`-sSo`).
    return word[1] === flag[1] || (/^-[A-Za-z]+$/.test(word) && word.includes(flag[1]!));
  }
  // Single-dash long options (`-exec`, `-chdir`, `-toolexec`): as written or with `=value`.
  return word.startsWith(`${flag}=`);
}

/** Does the rule's own text name this flag (then it may cover it)? */
function ruleNames(ruleWords: readonly string[], flag: string): boolean {
  return ruleWords.some((w) => wordHasFlag(w, flag) || (flag === '+*' && w.startsWith('+')));
}

/**
 * The first dangerous option in these (allow-stripped) words that the rule does not name, with what it does.
 * `words[0]` is the program; options after `--` are arguments.
 */
export function dangerousFlag(words: readonly { readonly value: string; readonly literal: boolean }[], ruleWords: readonly string[]): { flag: string; what: string } | undefined {
  const first = words[0];
  if (!first?.literal) return undefined;
  const name = first.value.slice(first.value.lastIndexOf('/') + 1);
  if (name === 'xargs') {
    // xargs running a shell: the code arrives at run time.
    const run = words.slice(1).find((w) => !(w.literal && w.value.startsWith('-')));
    if (run?.literal && /^(ba|da|z|k|mk|a|fi)?sh$/.test(run.value.slice(run.value.lastIndexOf('/') + 1)) && !ruleWords.includes(run.value)) return { flag: run.value, what: 'runs a shell on its input' };
  }
  const table = Object.hasOwn(DANGEROUS_FLAGS, name) ? DANGEROUS_FLAGS[name] : undefined;
  if (table === undefined) return undefined;
  const starts = subcommandStarts(name, words);
  const subAt = starts !== undefined && starts.length > 0 ? starts[0]! : -1;
  const sub = subAt > 0 && words[subAt]?.literal ? words[subAt]!.value : undefined;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (!w.literal) continue;
    if (w.value === '--' && (subAt < 0 || i > subAt)) break;
    const dangers: Danger[] = [];
    if (table.global && (!table.globalBeforeSubcommand || subAt < 0 || i < subAt)) dangers.push(...table.global);
    if (table.sub && sub !== undefined && i > subAt) dangers.push(...(table.sub['*'] ?? []), ...(table.sub[sub] ?? []));
    for (const danger of dangers) {
      if (!danger.flag.startsWith('-') && danger.flag !== '+*') {
        // A word (`git bisect run`, `git submodule foreach`): the subcommand's next word.
        if (i === subAt + 1 && w.value === danger.flag && !ruleWords.includes(danger.flag)) return danger;
        continue;
      }
      if (wordHasFlag(w.value, danger.flag) && !ruleNames(ruleWords, danger.flag)) return danger;
    }
  }
  return undefined;
}
