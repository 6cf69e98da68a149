/**
 * How common command-line programs read their options, as the permission checks need it:
 *  - GLOBAL_OPTIONS: the options a multi-level CLI accepts before its subcommand, with the program's option family,
 *    so `docker --context prod run …` is also seen as `docker run …` by deny and ask rules (issue 10, class 1);
 *  - SCAN_SYNTAX: the option syntax of single-level programs and of subcommands whose options decide where their
 *    own options end (`docker run IMAGE cmd…`);
 *  - `dangerousFlag`: the first dangerous option (program-dangers.ts) a prefix or wildcard allow rule must not cover,
 *    read the way the program reads it (option-reader.ts: abbreviations, clusters, `=`, `--`).
 * Tables, so they grow by adding rows.
 */
import type { MatchWord } from './rule-match.js';
import { namedOptions, readOptions, type OptionSyntax, type OptionUse } from './option-reader.js';
import { DANGEROUS_FLAGS, type Danger } from './program-dangers.js';

export type GlobalOptions = OptionSyntax;

const s = (...xs: string[]): ReadonlySet<string> => new Set(xs);
const words = (text: string, prefix = '--'): string[] => text.split(' ').map((w) => prefix + w);

// npm's own configuration keys (npm 11), by type: booleans take no value, the rest take one, `browser`/`color` may.
const NPM_BOOLEAN = words('all allow-same-version audit bin-links bypass-2fa commit-hooks dangerously-allow-all-scripts description dev diff-ignore-all-space diff-name-only diff-no-prefix diff-text dry-run engine-strict expect-results force foreground-scripts format-package-lock fund git-tag-version global global-style if-present ignore-scripts include-staged include-workspace-root include-attestations init-private install-links json legacy-bundling legacy-peer-deps link long offline omit-lockfile-registry-resolved optional package-lock package-lock-only parseable allow-scripts-pending allow-scripts-pin prefer-dedupe prefer-offline prefer-online production progress provenance read-only rebuild-bundle save save-bundle save-dev save-exact save-optional save-peer save-prod packages-all shrinkwrap sign-git-commit sign-git-tag strict-peer-deps strict-allow-scripts strict-ssl timing unicode update-notifier usage version versions workspaces workspaces-update yes');
const NPM_VALUED = words('_auth access allow-directory allow-file allow-git allow-remote allow-scripts also audit-level auth-type before ca cache cache-max cache-min cafile call cert cidr cpu depth diff diff-dst-prefix diff-src-prefix diff-unified editor expect-result-count expires fetch-retries fetch-retry-factor fetch-retry-maxtimeout fetch-retry-mintimeout fetch-timeout git globalconfig heading https-proxy include init-author-email init-author-name init-author-url init-license init-module init-type init-version init.author.email init.author.name init.author.url init.license init.module init.version install-strategy key libc local-address location lockfile-version loglevel logs-dir logs-max name maxsockets message min-release-age min-release-age-exclude node-gyp node-options noproxy omit only orgs os otp package pack-destination packages prefix preid provenance-file proxy registry replace-registry-host save-prefix sbom-format sbom-type scope scopes packages-and-scopes-permission orgs-permission password token-description script-shell searchexclude searchlimit searchopts searchstaleness shell tag tag-version-prefix umask user-agent userconfig viewer which workspace');
const NPM_SHORTHANDS: Record<string, readonly string[]> = {
  'enjoy-by': ['--before'], d: ['--loglevel', 'info'], dd: ['--loglevel', 'verbose'], ddd: ['--loglevel', 'silly'], quiet: ['--loglevel', 'warn'], q: ['--loglevel', 'warn'],
  s: ['--loglevel', 'silent'], silent: ['--loglevel', 'silent'], verbose: ['--loglevel', 'verbose'], desc: ['--description'], help: ['--usage'], local: ['--no-global'],
  n: ['--no-yes'], no: ['--no-yes'], porcelain: ['--parseable'], readonly: ['--read-only'], reg: ['--registry'], iwr: ['--include-workspace-root'], ws: ['--workspaces'],
  a: ['--all'], c: ['--call'], f: ['--force'], g: ['--global'], L: ['--location'], l: ['--long'], m: ['--message'], p: ['--parseable'], C: ['--prefix'], S: ['--save'],
  B: ['--save-bundle'], D: ['--save-dev'], E: ['--save-exact'], O: ['--save-optional'], P: ['--save-prod'], '?': ['--usage'], H: ['--usage'], h: ['--usage'], v: ['--version'],
  w: ['--workspace'], y: ['--yes'],
};
const NPM: OptionSyntax = { family: 'nopt', valued: s(...NPM_VALUED), flags: s(...NPM_BOOLEAN), known: s('--browser', '--color'), shorthands: NPM_SHORTHANDS };
// pnpm and yarn read their own keys (pnpm: `-C` is `--dir`); nopt's rules are the widest of their parsers.
const PNPM: OptionSyntax = {
  family: 'nopt',
  valued: s(...NPM_VALUED, '--dir', '--filter', '--filter-prod', '--reporter', '--store-dir', '--virtual-store-dir', '--modules-dir', '--lockfile-dir', '--workspace-concurrency', '--cwd', '--modules-folder', '--global-folder', '--cache-folder', '--use-yarnrc', '--network-timeout', '--mutex'),
  flags: s(...NPM_BOOLEAN, '--recursive', '--workspace-root', '--silent', '--frozen-lockfile', '--offline', '--non-interactive', '--ignore-workspace', '--stream', '--parallel', '--no-bail', '--aggregate-output'),
  shorthands: { C: ['--dir'], F: ['--filter'], r: ['--recursive'], w: ['--workspace-root'], g: ['--global'], s: ['--silent'], D: ['--save-dev'], P: ['--save-prod'], O: ['--save-optional'], E: ['--save-exact'], h: ['--help'], v: ['--version'] },
};
const DOCKER_VALUED = s('--context', '-c', '-H', '--host', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey');
const DOCKER_FLAGS = s('-D', '--debug', '--tls', '--tlsverify', '-v', '--version', '-h', '--help');
const KUBE_VALUED = s('-n', '--namespace', '--context', '--cluster', '--kubeconfig', '-s', '--server', '--user', '--token', '--as', '--as-group', '--as-uid', '--certificate-authority', '--client-certificate', '--client-key', '--request-timeout', '-v', '--v', '--cache-dir', '--tls-server-name', '--password', '--username', '--profile', '--profile-output', '--log-dir', '--log-file', '--vmodule', '--log-file-max-size', '--stderrthreshold', '--kuberc');
const KUBE_FLAGS = s('--match-server-version', '--insecure-skip-tls-verify', '--warnings-as-errors', '--disable-compression', '-h', '--help', '-A', '--all-namespaces', '--logtostderr', '--alsologtostderr', '--one-output', '--skip-headers', '--skip-log-headers', '--add-dir-header');
const PIP: OptionSyntax = { family: 'argparse', valued: s('--python', '--log', '--proxy', '--retries', '--timeout', '--exists-action', '--trusted-host', '--cert', '--client-cert', '--cache-dir', '--use-feature', '--use-deprecated', '--progress-bar', '-i', '--index-url', '--extra-index-url', '-f', '--find-links', '--keyring-provider', '--resume-retries'), flags: s('-v', '--verbose', '-q', '--quiet', '--isolated', '--require-virtualenv', '--no-input', '--no-cache-dir', '--disable-pip-version-check', '--no-color', '--debug', '-V', '--version', '-h', '--help', '--no-python-version-warning') };
const TERRAFORM: OptionSyntax = { family: 'goflag', valued: s('-chdir'), flags: s('-help', '-version', '-h', '-v') };

export const GLOBAL_OPTIONS: Readonly<Record<string, GlobalOptions>> = {
  // git's own global options take no abbreviations (git.c compares them whole).
  git: {
    family: 'git',
    abbreviate: false,
    valued: s('-C', '-c', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--attr-source'),
    flags: s('--no-pager', '-P', '-p', '--paginate', '--no-optional-locks', '--literal-pathspecs', '--glob-pathspecs', '--noglob-pathspecs', '--icase-pathspecs', '--no-replace-objects', '--bare', '--no-lazy-fetch', '--no-advice', '--html-path', '--man-path', '--info-path', '--version', '--help', '-v', '-h'),
    // `--exec-path` prints the path; `--exec-path=DIR` sets it: neither it nor `--list-cmds=` takes the next word.
    known: s('--exec-path', '--list-cmds'),
  },
  npm: NPM,
  // npx reads npm's options up to the package; what follows is the package's command line.
  npx: { ...NPM, stopAtOperand: true, valued: s(...NPM_VALUED, '--shell'), shorthands: { ...NPM_SHORTHANDS, p: ['--package'] } },
  pnpm: PNPM,
  yarn: PNPM,
  bun: { family: 'gnu', valued: s('--cwd', '-c', '--config', '--env-file', '--preload', '-r', '-e', '--eval', '-p', '--print'), flags: s('--silent', '--bun', '--watch', '--hot', '--smol', '-v', '--version') },
  docker: { family: 'pflag', valued: DOCKER_VALUED, flags: DOCKER_FLAGS },
  podman: { family: 'pflag', valued: s(...DOCKER_VALUED, '--connection', '--url', '--identity', '--root', '--runroot', '--storage-driver', '--cgroup-manager', '--events-backend', '--runtime', '--tmpdir', '--module', '--network-config-dir'), flags: s(...DOCKER_FLAGS, '--remote', '-r', '--syslog') },
  kubectl: { family: 'pflag', valued: KUBE_VALUED, flags: KUBE_FLAGS },
  oc: { family: 'pflag', valued: KUBE_VALUED, flags: KUBE_FLAGS },
  helm: { family: 'pflag', valued: s('-n', '--namespace', '--kube-context', '--kubeconfig', '--kube-apiserver', '--kube-as-user', '--kube-as-group', '--kube-token', '--kube-ca-file', '--registry-config', '--repository-cache', '--repository-config', '--burst-limit', '--qps', '--kube-tls-server-name'), flags: s('--debug', '--kube-insecure-skip-tls-verify', '-h', '--help') },
  cargo: { family: 'gnu', abbreviate: false, valued: s('--config', '-Z', '--color', '-C', '--manifest-path', '--target-dir', '--explain'), flags: s('-v', '-vv', '--verbose', '-q', '--quiet', '--frozen', '--locked', '--offline', '-V', '--version', '--list', '-h', '--help') },
  go: { family: 'goflag', valued: s('-C'), flags: s() },
  pip: PIP,
  pip3: PIP,
  uv: { family: 'gnu', abbreviate: false, valued: s('--directory', '--project', '--config-file', '--cache-dir', '--python', '-p', '--color', '--index-url', '--extra-index-url', '--default-index', '--index', '--find-links', '-f'), flags: s('-q', '--quiet', '-v', '--verbose', '--no-cache', '-n', '--offline', '--no-progress', '--native-tls', '--no-config', '--preview', '--frozen', '--locked') },
  poetry: { family: 'argparse', valued: s('-C', '--directory', '-P', '--project'), flags: s('-q', '--quiet', '-v', '-vv', '-vvv', '--verbose', '-n', '--no-interaction', '--no-ansi', '--ansi', '--no-plugins', '--no-cache', '-h', '--help', '-V', '--version') },
  gh: { family: 'pflag', valued: s('-R', '--repo', '--hostname'), flags: s('--help', '--version') },
  terraform: TERRAFORM,
  tofu: TERRAFORM,
  pulumi: { family: 'pflag', valued: s('-C', '--cwd', '-s', '--stack', '--color', '--config-file', '-v', '--verbose', '--tracing', '--profiling', '--memprofilerate', '--otel-traces'), flags: s('--logflow', '--non-interactive', '--emoji', '--logtostderr', '--disable-integrity-checking', '--fully-qualify-stack-names', '-h', '--help', '--version') },
  vercel: { family: 'pflag', valued: s('--cwd', '-A', '--local-config', '-Q', '--global-config', '-S', '--scope', '-t', '--token', '-T', '--team', '--api'), flags: s('-d', '--debug', '--no-color', '-y', '--yes', '-h', '--help', '-v', '--version') },
  netlify: { family: 'pflag', valued: s('--cwd', '--auth', '--site', '--filter', '--http-proxy', '--http-proxy-certificate-filename'), flags: s('--debug', '-h', '--help', '-V', '--version', '--json') },
  fly: { family: 'pflag', valued: s('-t', '--access-token', '-a', '--app', '-c', '--config', '-r', '--region', '-o', '--org'), flags: s('--verbose', '--debug', '-j', '--json', '-h', '--help') },
  heroku: { family: 'pflag', valued: s('-a', '--app', '-r', '--remote', '--team'), flags: s('-h', '--help', '--json') },
  firebase: { family: 'pflag', valued: s('-P', '--project', '--account', '--token', '-c', '--config'), flags: s('--json', '--debug', '--non-interactive', '-i', '--interactive', '-h', '--help', '-V', '--version') },
  wrangler: { family: 'gnu', abbreviate: false, valued: s('-c', '--config', '-e', '--env', '--cwd', '--env-file'), flags: s('-h', '--help', '-v', '--version') },
  doctl: { family: 'pflag', valued: s('-t', '--access-token', '--context', '-c', '--config', '-u', '--api-url', '-o', '--output', '--http-retry-max'), flags: s('--trace', '-v', '--verbose', '-h', '--help', '--interactive') },
  supabase: { family: 'pflag', valued: s('--workdir', '--db-url', '--project-ref', '--profile', '--network-id', '-o', '--output', '--dns-resolver'), flags: s('--debug', '--linked', '--local', '--yes', '--experimental', '-h', '--help', '-v', '--version') },
  railway: { family: 'pflag', valued: s('-s', '--service', '-e', '--environment'), flags: s('--json', '-h', '--help', '-V', '--version') },
  aws: { family: 'argparse', valued: s('--profile', '--region', '--endpoint-url', '--output', '--query', '--cli-read-timeout', '--cli-connect-timeout', '--ca-bundle', '--color', '--cli-binary-format'), flags: s('--debug', '--no-verify-ssl', '--no-paginate', '--no-sign-request', '--no-cli-pager', '--cli-auto-prompt', '--no-cli-auto-prompt') },
  gcloud: { family: 'argparse', valued: s('--project', '--account', '--configuration', '--billing-project', '--impersonate-service-account', '--verbosity', '--format', '--flags-file', '--flatten', '--access-token-file', '--trace-token'), flags: s('--quiet', '-q', '--log-http', '--user-output-enabled', '--no-user-output-enabled', '-h', '--help') },
  az: { family: 'argparse', valued: s('--subscription', '--output', '-o', '--query'), flags: s('--debug', '--verbose', '--only-show-errors', '-h', '--help') },
  systemctl: { family: 'gnu', valued: s('-H', '--host', '-M', '--machine', '-t', '--type', '-p', '--property', '-s', '--signal', '--kill-whom', '--root', '-n', '--lines', '-o', '--output', '--state', '--job-mode', '--what', '--timestamp', '--image', '--drop-in', '--preset-mode', '--boot-loader-entry', '--reboot-argument'), flags: s('--user', '--system', '--global', '-a', '--all', '-l', '--full', '-q', '--quiet', '--no-block', '--no-wall', '--no-reload', '--no-ask-password', '--no-pager', '--no-legend', '-f', '--force', '--now', '-i', '--ignore-inhibitors', '--dry-run', '-r', '--recursive', '--runtime', '--failed', '--show-types', '--wait') },
  apt: { family: 'gnu', valued: s('-o', '--option', '-c', '--config-file', '-t', '--target-release'), flags: s('-y', '--yes', '--assume-yes', '-q', '--quiet', '-qq', '-s', '--simulate', '--dry-run', '--no-install-recommends', '--install-suggests', '-f', '--fix-broken', '--reinstall', '--purge', '-h', '--help', '-v', '--version') },
  'apt-get': { family: 'gnu', valued: s('-o', '--option', '-c', '--config-file', '-t', '--target-release'), flags: s('-y', '--yes', '--assume-yes', '-q', '-qq', '--quiet', '-s', '--simulate', '--dry-run', '--no-install-recommends', '-f', '--fix-broken', '--reinstall', '--purge') },
  brew: { family: 'gnu', valued: s(), flags: s('-v', '--verbose', '-d', '--debug', '-q', '--quiet') },
  make: { family: 'gnu', valued: s('-C', '--directory', '-f', '--file', '--makefile', '-I', '--include-dir', '-o', '--old-file', '-W', '--what-if', '--new-file', '--assume-new', '--eval', '-E', '--jobserver-style'), flags: s('--debug', '-s', '--silent', '-k', '--keep-going', '-n', '--dry-run', '-B', '--always-make', '-i', '-e', '-r', '-R', '-w', '--no-print-directory', '-q', '--question'), known: s('-j', '--jobs', '-O', '--output-sync', '-l', '--load-average') },
  dotnet: { family: 'gnu', abbreviate: false, valued: s(), flags: s('-d', '--diagnostics', '-h', '--help', '--info', '--version') },
  mvn: { family: 'gnu', valued: s('-f', '--file', '-s', '--settings', '-gs', '--global-settings', '-P', '--activate-profiles', '-pl', '--projects', '-T', '--threads', '-D'), flags: s('-B', '--batch-mode', '-q', '--quiet', '-X', '--debug', '-e', '--errors', '-o', '--offline', '-U', '-N', '-am', '-amd') },
  gradle: { family: 'gnu', abbreviate: false, valued: s('-p', '--project-dir', '-b', '--build-file', '-c', '--settings-file', '-g', '--gradle-user-home', '-D', '-P', '-I', '--init-script'), flags: s('-q', '--quiet', '-i', '--info', '-d', '--debug', '-s', '--stacktrace', '--offline', '--daemon', '--no-daemon', '--parallel', '--continue') },
};
for (const [alias, of] of [['./gradlew', 'gradle'], ['gradlew', 'gradle'], ['flyctl', 'fly'], ['netlify-cli', 'netlify']] as const) {
  (GLOBAL_OPTIONS as Record<string, GlobalOptions>)[alias] = GLOBAL_OPTIONS[of]!;
}

const DOCKER_RUN: OptionSyntax = {
  family: 'pflag',
  // Options stop at the image: what follows is the container's command line.
  stopAtOperand: true,
  valued: s('--add-host', '--annotation', '-a', '--attach', '--blkio-weight', '--blkio-weight-device', '--cap-add', '--cap-drop', '--cgroup-parent', '--cgroupns', '--cidfile', '--cpu-period', '--cpu-quota', '--cpu-rt-period', '--cpu-rt-runtime', '-c', '--cpu-shares', '--cpus', '--cpuset-cpus', '--cpuset-mems', '--device', '--device-cgroup-rule', '--device-read-bps', '--device-read-iops', '--device-write-bps', '--device-write-iops', '--dns', '--dns-option', '--dns-search', '--domainname', '--entrypoint', '-e', '--env', '--env-file', '--expose', '--gpus', '--group-add', '--health-cmd', '--health-interval', '--health-retries', '--health-start-interval', '--health-start-period', '--health-timeout', '-h', '--hostname', '--ip', '--ip6', '--ipc', '--isolation', '--kernel-memory', '-l', '--label', '--label-file', '--link', '--link-local-ip', '--log-driver', '--log-opt', '--mac-address', '-m', '--memory', '--memory-reservation', '--memory-swap', '--memory-swappiness', '--mount', '--name', '--network', '--net', '--network-alias', '--oom-score-adj', '--pid', '--pids-limit', '--platform', '-p', '--publish', '--pull', '--restart', '--runtime', '--security-opt', '--shm-size', '--stop-signal', '--stop-timeout', '--storage-opt', '--sysctl', '--tmpfs', '--ulimit', '-u', '--user', '--userns', '--uts', '-v', '--volume', '--volume-driver', '--volumes-from', '-w', '--workdir', '--detach-keys'),
  flags: s('-d', '--detach', '-i', '--interactive', '-t', '--tty', '--rm', '--privileged', '--init', '-P', '--publish-all', '--read-only', '--sig-proxy', '--no-healthcheck', '--oom-kill-disable', '-q', '--quiet', '--disable-content-trust', '--help', '--use-api-socket'),
};
const DOCKER_EXEC: OptionSyntax = { family: 'pflag', stopAtOperand: true, valued: s('-e', '--env', '--env-file', '-u', '--user', '-w', '--workdir', '--detach-keys'), flags: s('-d', '--detach', '-i', '--interactive', '-t', '--tty', '--privileged') };

/** The option syntax of the arguments after a subcommand (default: the program's own). */
const SUB_SYNTAX: Readonly<Record<string, Readonly<Record<string, OptionSyntax>>>> = {
  docker: { run: DOCKER_RUN, create: DOCKER_RUN, exec: DOCKER_EXEC },
  podman: { run: DOCKER_RUN, create: DOCKER_RUN, exec: DOCKER_EXEC },
  // Options of git's subcommands are many and mostly unknown here: every dash word is read as an option. Known: the
  // real options that are prefixes of dangerous ones (`--text` is not `--textconv`), and `--pretty`/`--format`, which
  // take their value only after `=`.
  git: {
    '*': { family: 'git', flags: s('--pretty', '--format'), known: s('--text', '--filter', '--exit-code') },
    // ref-filter commands take `--format` with a separate value.
    ...Object.fromEntries(['for-each-ref', 'branch', 'tag'].map((sub) => [sub, { family: 'git', valued: s('--format', '--sort', '--contains', '--no-contains', '--merged', '--no-merged', '--points-at') } as OptionSyntax])),
  },
};

const GNU_NO_ABBREV = (valued: string[], flags: string[] = []): OptionSyntax => ({ family: 'gnu', abbreviate: false, valued: s(...valued), flags: s(...flags) });

/** Single-level programs with dangerous flags: how they read their options. */
export const SCAN_SYNTAX: Readonly<Record<string, OptionSyntax>> = {
  sort: { family: 'gnu', valued: s('-k', '--key', '-t', '--field-separator', '-S', '--buffer-size', '-T', '--temporary-directory', '--parallel', '--files0-from', '--batch-size', '--random-source', '-o', '--output', '--compress-program') },
  // find's primaries are words of one dash that come after the paths.
  find: { family: 'goflag', stopAtOperand: false, valued: s('-name', '-iname', '-path', '-ipath', '-regex', '-iregex', '-type', '-newer', '-perm', '-user', '-group', '-size', '-mtime', '-mmin', '-maxdepth', '-mindepth', '-printf', '-fprint', '-fprint0', '-fprintf', '-fls') },
  fd: GNU_NO_ABBREV(['-e', '--extension', '-E', '--exclude', '-t', '--type', '-d', '--max-depth', '--min-depth', '-S', '--size', '--changed-within', '--changed-before', '-o', '--owner', '--search-path', '--base-directory', '-j', '--threads', '--max-results', '-c', '--color', '--ignore-file', '--format', '--path-separator', '-x', '--exec', '-X', '--exec-batch']),
  rg: GNU_NO_ABBREV(['-e', '--regexp', '-f', '--file', '-g', '--glob', '--iglob', '-t', '--type', '-T', '--type-not', '--type-add', '-m', '--max-count', '-A', '--after-context', '-B', '--before-context', '-C', '--context', '-j', '--threads', '-M', '--max-columns', '-d', '--max-depth', '--max-filesize', '--ignore-file', '--color', '--colors', '--sort', '--sortr', '-E', '--encoding', '-r', '--replace', '--engine', '--pre', '--pre-glob', '--hostname-bin']),
  tar: { family: 'gnu', valued: s('-f', '--file', '-C', '--directory', '-T', '--files-from', '-X', '--exclude-from', '-I', '--use-compress-program', '-F', '--info-script', '--new-volume-script', '--to-command', '--checkpoint-action', '--rsh-command', '--rmt-command', '-b', '--blocking-factor', '-H', '--format', '-K', '--starting-file', '-L', '--tape-length', '-N', '--newer', '-V', '--label') },
  // ssh reads options again after its destination; the word after that starts the remote command.
  ssh: { family: 'posix', stopAtOperandNumber: 2, valued: s('-B', '-b', '-c', '-D', '-E', '-e', '-F', '-I', '-i', '-J', '-L', '-l', '-m', '-O', '-o', '-P', '-p', '-Q', '-R', '-S', '-W', '-w') },
  scp: { family: 'posix', stopAtOperand: false, valued: s('-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-S', '-X') },
  sftp: { family: 'posix', stopAtOperand: false, valued: s('-B', '-b', '-c', '-D', '-F', '-i', '-J', '-l', '-o', '-P', '-R', '-S', '-s', '-X') },
  rsync: { family: 'gnu', valued: s('-e', '--rsh', '--rsync-path', '--exclude', '--exclude-from', '--include', '--include-from', '--filter', '-f', '--files-from', '--log-file', '--password-file', '-T', '--temp-dir', '--partial-dir', '--backup-dir', '--compare-dest', '--copy-dest', '--link-dest', '--suffix', '--chmod', '--chown', '--timeout', '--bwlimit', '--port', '--out-format', '-B', '--block-size') },
  curl: {
    family: 'curl',
    valued: s('-o', '--output', '--output-dir', '-D', '--dump-header', '-c', '--cookie-jar', '-b', '--cookie', '--trace', '--trace-ascii', '--libcurl', '--stderr', '-K', '--config', '-E', '--cert', '--key', '--cacert', '--capath', '-T', '--upload-file', '-F', '--form', '--form-string', '-d', '--data', '--data-binary', '--data-raw', '--data-ascii', '--data-urlencode', '--json', '-H', '--header', '--proxy-header', '-x', '--proxy', '--preproxy', '--socks4', '--socks4a', '--socks5', '--socks5-hostname', '--connect-to', '--resolve', '--doh-url', '--unix-socket', '--abstract-unix-socket', '--interface', '--dns-servers', '-X', '--request', '-u', '--user', '-U', '--proxy-user', '-A', '--user-agent', '-e', '--referer', '-w', '--write-out', '-m', '--max-time', '--connect-timeout', '--retry', '--retry-delay', '--retry-max-time', '-r', '--range', '-C', '--continue-at', '-z', '--time-cond', '--url', '--url-query', '--variable', '--netrc-file', '--etag-save', '--etag-compare', '--hsts', '--alt-svc', '-Y', '--speed-limit', '-y', '--speed-time', '--limit-rate', '--max-filesize', '--max-redirs', '--crlfile', '--pinnedpubkey', '--oauth2-bearer', '--aws-sigv4', '--noproxy', '-Q', '--quote', '--expect100-timeout', '--happy-eyeballs-timeout-ms', '--parallel-max', '--rate', '--ciphers', '--tls-max', '--local-port', '--ech'),
    flags: s('-s', '--silent', '-S', '--show-error', '-L', '--location', '-f', '--fail', '-i', '--include', '-I', '--head', '-k', '--insecure', '-v', '--verbose', '-O', '--remote-name', '--remote-name-all', '-J', '--remote-header-name', '-G', '--get', '-n', '--netrc', '--netrc-optional', '--compressed', '-N', '--no-buffer', '-#', '--progress-bar', '-q', '--disable', '--create-dirs', '-Z', '--parallel', '-g', '--globoff', '-4', '-6', '--http1.1', '--http2', '--fail-with-body', '--no-progress-meter', '-:', '--next'),
  },
  wget: { family: 'gnu', valued: s('-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output', '-e', '--execute', '--config', '--post-file', '--body-file', '--post-data', '--body-data', '--method', '-i', '--input-file', '--header', '--user', '--password', '--http-user', '--http-password', '--save-cookies', '--load-cookies', '--warc-file', '--certificate', '--private-key', '--ca-certificate', '--ca-directory', '--use-askpass', '-U', '--user-agent', '-t', '--tries', '-T', '--timeout', '-w', '--wait', '-l', '--level', '-A', '--accept', '-R', '--reject', '-B', '--base', '--hsts-file') },
  http: { family: 'argparse', valued: s('-o', '--output', '--session', '--session-read-only', '--cert', '--cert-key', '--verify', '--proxy', '--raw', '-a', '--auth', '-A', '--auth-type', '-p', '--print', '--pretty', '-s', '--style', '--timeout', '--max-redirects', '--ssl', '--ciphers', '--format-options', '--response-charset', '--response-mime', '--default-scheme', '--boundary', '--chunked'), flags: s('-d', '--download', '-c', '--continue', '-j', '--json', '-f', '--form', '--multipart', '-v', '--verbose', '-h', '--headers', '-b', '--body', '-F', '--follow', '--offline', '-q', '--quiet', '-I', '--ignore-stdin', '--check-status', '--all', '-x', '--compress') },
  sed: { family: 'gnu', valued: s('-e', '--expression', '-f', '--file', '-l', '--line-length') },
  less: { family: 'gnu', valued: s('-k', '--lesskey-file', '--lesskey-src', '--lesskey-content', '-p', '--pattern', '-t', '--tag', '-T', '--tag-file', '-x', '--tabs', '-y', '--max-forw-scroll', '-b', '--buffers', '-h', '--max-back-scroll', '-j', '--jump-target', '-o', '--log-file', '-O', '--LOG-FILE', '-P', '--prompt', '-z', '--window') },
  man: { family: 'gnu', valued: s('-P', '--pager', '-M', '--manpath', '-C', '--config-file', '-L', '--locale', '-m', '--systems', '-S', '-s', '--sections', '-e', '--extension', '-R', '--recode', '-E', '--encoding', '-p', '--preprocessor', '-T', '--troff-device', '-H', '--html', '-X', '--gxditview') },
  vim: GNU_NO_ABBREV(['-c', '--cmd', '-S', '-u', '-U', '-i', '-T', '-w', '-W', '-s', '-t', '-q', '-r', '--servername', '--remote', '--remote-send', '--remote-expr', '--startuptime', '-l']),
  emacs: { family: 'gnu', valued: s('--eval', '-l', '--load', '-f', '--funcall', '--script', '-x', '-L', '--directory', '--insert', '--find-file', '--file', '--visit', '--chdir', '--init-directory', '-t', '--terminal', '-d', '--display') },
  nano: { family: 'gnu', valued: s('--rcfile', '-f', '-T', '--tabsize', '-Y', '--syntax', '-o', '--operatingdir', '-r', '--fill', '-s', '--speller', '-X', '--wordchars', '-Q', '--quotestr', '-J', '--guidestripe') },
  zip: { family: 'gnu', abbreviate: false, valued: s('-TT', '--unzip-command', '-x', '--exclude', '-i', '--include', '-b', '-n', '-t', '-tt', '-P', '--password') },
  unzip: { family: 'posix', stopAtOperand: false, valued: s('-d', '-x', '-P') },
  patch: { family: 'gnu', valued: s('-d', '--directory', '-o', '--output', '-i', '--input', '-p', '--strip', '-r', '--reject-file', '-B', '--prefix', '-D', '--ifdef', '-F', '--fuzz', '-V', '--version-control', '-z', '--suffix') },
};
for (const [alias, of] of [['fdfind', 'fd'], ['vi', 'vim'], ['nvim', 'vim'], ['view', 'vim'], ['more', 'less'], ['https', 'http'], ['xh', 'http'], ['xhs', 'http']] as const) {
  (SCAN_SYNTAX as Record<string, OptionSyntax>)[alias] = SCAN_SYNTAX[of]!;
}

/** How the program reads its options: its table, or GNU rules with nothing known. */
const GENERIC: OptionSyntax = { family: 'gnu' };
export function syntaxOf(name: string): OptionSyntax {
  if (Object.hasOwn(GLOBAL_OPTIONS, name)) return GLOBAL_OPTIONS[name]!;
  if (Object.hasOwn(SCAN_SYNTAX, name)) return SCAN_SYNTAX[name]!;
  return GENERIC;
}

/**
 * Where the subcommand may start after the options in `words[1…]` read with `syntax`: one index when every option
 * before it is known, several when an unknown or non-literal option leaves open whether it took the next word as its
 * value (deny rules try every candidate). Empty when there is no subcommand.
 */
const stopping = new WeakMap<OptionSyntax, OptionSyntax>();
const scanning = new WeakMap<OptionSyntax, OptionSyntax>();
/** The syntax with parsing stopping at (or going past) the first operand; one object per syntax, for the reader's caches. */
function withStop(syntax: OptionSyntax, stop: boolean): OptionSyntax {
  const cache = stop ? stopping : scanning;
  let out = cache.get(syntax);
  if (!out) cache.set(syntax, (out = { ...syntax, stopAtOperand: stop }));
  return out;
}

export function startsAfterOptions(words: readonly MatchWord[], syntax: OptionSyntax, wide = false): number[] {
  const r = readOptions(words, withStop(syntax, true), 1);
  const starts = r.operands.filter((o) => o.at < r.end || (o.at === r.end && !r.endedByDashes)).map((o) => o.at);
  // Wide (deny views): a value the table says an option takes may be the subcommand after all (a row that is wrong,
  // or a newer version of the program where the option became a flag).
  if (wide) for (const o of r.options) if (o.valueAt !== undefined && o.valueAt < r.end) starts.push(o.valueAt);
  if (r.endedByDashes && r.end < words.length) starts.push(r.end);
  else if (r.end < words.length && !starts.includes(r.end)) starts.push(r.end);
  return [...new Set(starts)].sort((a, b) => a - b);
}

/** The subcommand candidates of a multi-level CLI (undefined for programs without a table). */
export function subcommandStarts(name: string, words: readonly MatchWord[]): number[] | undefined {
  const table = Object.hasOwn(GLOBAL_OPTIONS, name) ? GLOBAL_OPTIONS[name] : undefined;
  return table === undefined ? undefined : startsAfterOptions(words, table);
}

/** The syntax used to find dangerous options: the program's, with its danger names known (for abbreviations). */
const scanCache = new Map<string, OptionSyntax>();
function scanSyntax(name: string, base: OptionSyntax, dangers: readonly Danger[] | (() => readonly Danger[])): OptionSyntax {
  let syntax = scanCache.get(name);
  if (!syntax) {
    const list = typeof dangers === 'function' ? dangers() : dangers;
    const known = new Set([...(base.known ?? []), ...list.filter((x) => x.flag.startsWith('-') && !isPattern(x.flag)).map((x) => x.flag)]);
    syntax = { ...base, known };
    scanCache.set(name, syntax);
  }
  return syntax;
}

/** `--config.*`: any option whose name starts so. */
const isPattern = (flag: string): boolean => flag.length > 2 && flag.endsWith('*');
const nameHits = (name: string, flag: string): boolean => (isPattern(flag) ? name.startsWith(flag.slice(0, -1)) : name === flag);

const hits = (o: OptionUse, danger: Danger): boolean => {
  if (o.negated || !o.names.some((n) => nameHits(n, danger.flag))) return false;
  if (!danger.value) return true;
  // An option known to take no separate value, written without one, has no value to test.
  if (o.value === undefined) return o.arity !== 'none';
  return !o.value.literal || danger.value.test(o.value.value);
};

/**
 * The first dangerous option in these (allow-stripped) words that the rule does not name, with what it does.
 * `words[0]` is the program; options are read as the program reads them. `only`: the kinds of danger looked for
 * (the read-only classifier asks for what runs or writes, and judges another target itself).
 */
export function dangerousFlag(words: readonly MatchWord[], ruleWords: readonly string[], only?: ReadonlySet<string>): { flag: string; what: string } | undefined {
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
  const base = scanSyntax(name, syntaxOf(name), () => [...(table.global ?? []), ...Object.values(table.sub ?? {}).flat()]);
  // tar's first word may be a cluster of old-style options (`tar xIf evil a.tar`).
  const view = name === 'tar' && words[1]?.literal && /^[A-Za-z]+$/.test(words[1].value) ? [first, { value: `-${words[1].value}`, literal: true }, ...words.slice(2)] : words;
  const ruleNamed = namedOptions(ruleWords.slice(1), base);
  const named = (danger: Danger) =>
    (only !== undefined && !only.has(danger.what)) ||
    (ruleNamed.size > 0 && [...ruleNamed].some((n) => nameHits(n, danger.flag))) ||
    (danger.flag === '+*' && ruleWords.some((w) => w.startsWith('+')));
  const plusWord = view.slice(1).find((w) => w.literal && w.value.length > 1 && w.value.startsWith('+'));

  const check = (dangers: readonly Danger[], from: number, to: number, syntax: OptionSyntax, subAt: number): { flag: string; what: string } | undefined => {
    const r = readOptions(view.slice(0, to), syntax, from);
    for (const danger of dangers) {
      if (named(danger)) continue;
      if (danger.flag === '+*') {
        if (plusWord) return { flag: plusWord.value, what: danger.what };
        continue;
      }
      if (!danger.flag.startsWith('-')) {
        // A word (`git bisect run`, `git submodule foreach`): the subcommand's next word.
        const next = view[subAt + 1];
        if (subAt > 0 && next?.literal && next.value === danger.flag && !ruleWords.includes(danger.flag)) return danger;
        continue;
      }
      const o = r.options.find((x) => hits(x, danger));
      if (o) return { flag: o.written === danger.flag ? o.written : `${o.written} (read as ${danger.flag})`, what: danger.what };
    }
    if (table.operand) {
      const operands = r.operands.map((o) => view[o.at]!).filter((w) => w.literal).map((w) => w.value);
      const all = [...operands, ...view.slice(r.end, to).map((w) => w.value)];
      for (const [i, w] of all.entries()) {
        const what = table.operand(w, i, all);
        if (what !== undefined && !ruleWords.includes(w)) return { flag: w, what };
      }
    }
    return undefined;
  };

  const starts = Object.hasOwn(GLOBAL_OPTIONS, name) ? startsAfterOptions(view, base) : [];
  if (starts.length === 0) return check(table.global ?? [], 1, view.length, base, -1);
  for (const subAt of starts) {
    const sub = view[subAt]?.literal ? view[subAt].value : undefined;
    const subDangers = [...(table.sub?.['*'] ?? []), ...(sub !== undefined ? (table.sub?.[sub] ?? []) : [])];
    const subSyntax = (sub !== undefined && SUB_SYNTAX[name]?.[sub]) || SUB_SYNTAX[name]?.['*'] || base;
    const found = table.globalBeforeSubcommand
      ? (check(table.global ?? [], 1, subAt, base, -1) ?? check(subDangers, subAt + 1, view.length, scanSyntax(`${name} ${sub ?? ''}`, subSyntax, subDangers), subAt))
      : check([...(table.global ?? []), ...subDangers], 1, view.length, withStop(base, false), subAt);
    if (found) return found;
  }
  return undefined;
}
