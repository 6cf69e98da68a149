/**
 * DANGEROUS_FLAGS: options (and a few operands) that turn an otherwise allowed command into code execution, a write,
 * sending local data, or an action on another target (`git -c core.pager=sh`, `npm --prefix /elsewhere`, `sort -o`,
 * `rg --pre`, `ssh -o ProxyCommand=…`, `curl -x`, `docker run --network host`, `make SHELL=…`): a prefix or wildcard
 * allow rule never covers them unless the rule's own text names the flag (issue 10 class 2, issue 21). Flags are
 * named as the program's option reader resolves them (`--node-options`, not every abbreviation of it): the reader
 * (option-reader.ts) maps `--node-option=…` and `-C` to these names. Tables, so they grow by adding rows.
 */

export interface Danger {
  /** The option's name; a plain word is the subcommand's next word (`git bisect run`); `+*` is any `+cmd` word. */
  readonly flag: string;
  readonly what: string;
  /** Only when the value matches (`--network host`); a value that cannot be read counts. */
  readonly value?: RegExp;
}

export interface ProgramDangers {
  /** Anywhere in the arguments (before the subcommand only, with `globalBeforeSubcommand`). */
  readonly global?: readonly Danger[];
  /** After a given subcommand (`*`: after any). */
  readonly sub?: Readonly<Record<string, readonly Danger[]>>;
  /** The program's global options mean something else after the subcommand (git, docker). */
  readonly globalBeforeSubcommand?: boolean;
  /** Operands that change what the program does: what they do, or undefined (`make SHELL=…`, httpie `field@file`). */
  readonly operand?: (word: string, index: number, all: readonly string[]) => string | undefined;
}

const d = (what: string, ...flags: string[]): Danger[] => flags.map((flag) => ({ flag, what }));
const when = (what: string, value: RegExp, ...flags: string[]): Danger[] => flags.map((flag) => ({ flag, what, value }));
export const RUNS = 'runs a program';
export const WRITES = 'writes a file';
export const ELSEWHERE = 'acts on another target';
export const CONFIG = 'loads other configuration';
const SENDS = 'sends local data or files';
const PROXY = 'sends the request through another host';

const NPM_DANGERS: ProgramDangers = {
  global: [
    ...d(ELSEWHERE, '--prefix', '--cwd', '--dir', '--registry', '--global', '--location', '--proxy', '--https-proxy', '--local-address', '--workspace-root'),
    ...d(CONFIG, '--userconfig', '--globalconfig', '--cafile', '--ca', '--cert', '--key', '--use-yarnrc', '--cache'),
    ...d(RUNS, '--script-shell', '--node-options', '--shell', '--editor', '--browser', '--viewer', '--git', '--node-gyp', '--init-module', '--call', '--package', '--allow-scripts', '--dangerously-allow-all-scripts'),
    ...d(WRITES, '--logs-dir', '--pack-destination', '--modules-folder', '--global-folder', '--cache-folder'),
  ],
};

const CONTAINER_RUN = [
  ...d(RUNS, '--privileged', '--cap-add', '--device', '--device-cgroup-rule', '--security-opt', '--runtime', '--gpus'),
  ...when(ELSEWHERE, /^(host|container:)/, '--network', '--net', '--pid', '--ipc', '--uts', '--userns', '--cgroupns'),
  ...d(WRITES, '-v', '--volume', '--mount', '--volumes-from', '--cidfile'),
  ...d(SENDS, '--env-file', '--label-file'),
];
const CONTAINER_SUB: Readonly<Record<string, readonly Danger[]>> = {
  run: CONTAINER_RUN,
  create: CONTAINER_RUN,
  exec: [...d(RUNS, '--privileged'), ...d(SENDS, '--env-file')],
  build: [...when(ELSEWHERE, /^host$/, '--network'), ...d(RUNS, '--allow'), ...d(SENDS, '--build-context', '--secret', '--ssh'), ...d(WRITES, '-o', '--output', '--iidfile', '--metadata-file', '--cache-to')],
  buildx: [...when(ELSEWHERE, /^host$/, '--network'), ...d(RUNS, '--allow'), ...d(SENDS, '--build-context', '--secret', '--ssh'), ...d(WRITES, '-o', '--output', '--iidfile', '--metadata-file', '--cache-to')],
  compose: [...d(CONFIG, '-f', '--file', '--env-file'), ...d(ELSEWHERE, '--project-directory', '-p', '--project-name')],
};

const KUBE = [
  ...d(ELSEWHERE, '--context', '--kubeconfig', '--cluster', '-s', '--server', '--token', '--as', '--as-group', '--as-uid', '--user', '--username', '--password', '--tls-server-name', '--insecure-skip-tls-verify'),
  ...d(CONFIG, '--certificate-authority', '--client-certificate', '--client-key'),
  ...d(WRITES, '--cache-dir', '--log-file', '--log-dir', '--profile-output'),
];

/** Make variables on the command line override the Makefile's: these name programs recipes run. */
const MAKE_PROGRAM_VARIABLE = /^(SHELL|\.SHELLFLAGS|MAKE|MAKEFLAGS|MAKEFILES|CC|CXX|CPP|LD|AR|AS|FC|RM|INSTALL|NM|OBJCOPY|STRIP|PYTHON|PERL|[A-Z_]*FLAGS)[:+?!]?=/;

/** httpie request items after the method and URL: `f=v`/`f:=v` send data, `f@file`/`f=@file` send a file. */
function httpItem(word: string, index: number, all: readonly string[]): string | undefined {
  const first = /^[A-Z]+$/.test(all[0] ?? '') ? 1 : 0;
  if (index <= first) return undefined;
  const sep = /(?<!\\)(:=@|=@|==|:=|=|@|:@|:)/.exec(word);
  if (!sep) return undefined;
  const s = sep[1]!;
  if (s === '==' || s === ':') return undefined;
  return s.includes('@') ? 'sends a local file' : 'sends data (not a plain read)';
}

export const DANGEROUS_FLAGS: Readonly<Record<string, ProgramDangers>> = {
  git: {
    globalBeforeSubcommand: true,
    global: [...d(RUNS, '-c', '--config-env', '--exec-path'), ...d(ELSEWHERE, '--git-dir', '--work-tree', '-C', '--namespace', '--super-prefix', '--attr-source')],
    sub: {
      // Programs git's configuration names: textconv and external diff drivers, gpg.program (signatures, `%G…`).
      '*': [
        ...d(RUNS, '--upload-pack', '--receive-pack', '--exec', '--textconv', '--ext-diff', '--open-files-in-pager', '--template', '--extcmd', '--show-signature'),
        ...when(RUNS, /%G/, '--format', '--pretty'),
        ...d(WRITES, '--output', '--output-directory'),
      ],
      'cat-file': d(RUNS, '--filters'),
      // ref-filter's `%(signature…)` (git 2.47+) verifies with gpg.program.
      'for-each-ref': when(RUNS, /%\(signature/, '--format'),
      branch: when(RUNS, /%\(signature/, '--format'),
      tag: [...when(RUNS, /%\(signature/, '--format'), ...d(RUNS, '-v', '--verify')],
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
  // pnpm: `--config.<key>=<value>` sets any setting.
  pnpm: { global: [...NPM_DANGERS.global!, ...d(CONFIG, '--config.*')] },
  yarn: NPM_DANGERS,
  npx: { globalBeforeSubcommand: true, global: [...d(RUNS, '--call', '--package', '--node-options', '--script-shell', '--shell'), ...d(ELSEWHERE, '--prefix', '--registry'), ...d(CONFIG, '--userconfig', '--globalconfig')] },
  bun: { global: [...d(ELSEWHERE, '--cwd'), ...d(RUNS, '--preload', '-r', '--eval', '-e', '--print', '-p'), ...d(CONFIG, '-c', '--config', '--env-file')] },
  sort: { global: [...d(WRITES, '-o', '--output'), ...d(RUNS, '--compress-program')] },
  find: { global: [...d(RUNS, '-exec', '-execdir', '-ok', '-okdir'), ...d(WRITES, '-delete', '-fprint', '-fprint0', '-fprintf', '-fls')] },
  fd: { global: d(RUNS, '-x', '--exec', '-X', '--exec-batch') },
  fdfind: { global: d(RUNS, '-x', '--exec', '-X', '--exec-batch') },
  rg: { global: d(RUNS, '--pre', '--hostname-bin', '-z', '--search-zip') },
  tar: { global: [...d(RUNS, '--to-command', '-I', '--use-compress-program', '--checkpoint-action', '--info-script', '-F', '--new-volume-script', '--rsh-command', '--rmt-command'), ...d(ELSEWHERE, '-C', '--directory', '-T', '--files-from')] },
  ssh: { global: [...d(RUNS, '-o', '-F'), ...d(ELSEWHERE, '-J', '-W', '-L', '-R', '-D', '-w'), ...d(CONFIG, '-i', '-S', '-E')] },
  scp: { global: [...d(RUNS, '-o', '-F', '-S'), ...d(ELSEWHERE, '-J')] },
  sftp: { global: d(RUNS, '-o', '-F', '-S', '-D') },
  rsync: { global: [...d(RUNS, '-e', '--rsh', '--rsync-path'), ...d(ELSEWHERE, '--files-from', '--include-from', '--exclude-from')] },
  curl: {
    global: [
      ...d(WRITES, '-o', '--output', '-O', '--remote-name', '--remote-name-all', '--output-dir', '-J', '--remote-header-name', '-D', '--dump-header', '-c', '--cookie-jar', '--trace', '--trace-ascii', '--libcurl', '--stderr', '--etag-save', '--hsts', '--alt-svc', '--create-dirs'),
      ...d(CONFIG, '-K', '--config', '-E', '--cert', '--key', '--cacert', '--capath', '--crlfile', '--netrc-file', '-n', '--netrc', '--netrc-optional', '--etag-compare'),
      // A cookie value without `=` is a file to read.
      ...when(CONFIG, /^[^=]*$/, '-b', '--cookie'),
      ...d(SENDS, '-T', '--upload-file', '-F', '--form', '-d', '--data', '--data-binary', '--data-raw', '--data-ascii', '--data-urlencode', '--json'),
      // `@file` reads a file into the request (or the output format).
      ...when(SENDS, /@/, '-H', '--header', '--proxy-header', '-w', '--write-out', '--url-query', '--variable', '--form-string'),
      ...d(PROXY, '-x', '--proxy', '--preproxy', '--socks4', '--socks4a', '--socks5', '--socks5-hostname', '--connect-to', '--resolve', '--doh-url', '--unix-socket', '--abstract-unix-socket', '--interface', '--dns-servers'),
      ...when('changes the request method', /^(?!(GET|HEAD|OPTIONS)$)/i, '-X', '--request'),
    ],
  },
  wget: {
    global: [
      ...d(WRITES, '-O', '--output-document', '-P', '--directory-prefix', '-o', '--output-file', '-a', '--append-output', '--save-cookies', '--warc-file', '-x', '--force-directories', '-r', '--recursive', '-m', '--mirror', '--hsts-file'),
      ...d(RUNS, '-e', '--execute', '--use-askpass'),
      ...d(CONFIG, '--config', '--load-cookies', '--certificate', '--private-key', '--ca-certificate', '--ca-directory'),
      ...d(SENDS, '--post-file', '--body-file', '--post-data', '--body-data', '--method', '-i', '--input-file'),
    ],
  },
  http: { global: [...d(WRITES, '-d', '--download', '-o', '--output'), ...d(CONFIG, '--session', '--session-read-only', '--cert', '--cert-key', '--verify'), ...d(PROXY, '--proxy'), ...d(SENDS, '--raw')], operand: httpItem },
  sed: { global: [...d(WRITES, '-i', '--in-place'), ...d(RUNS, '-f', '--file')] },
  less: { global: d(RUNS, '+*', '-k', '--lesskey-file', '--lesskey-src', '--lesskey-content') },
  more: { global: d(RUNS, '+*') },
  man: { global: d(RUNS, '-P', '--pager', '-H', '--html', '-l', '--local-file', '-M', '--manpath') },
  vi: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  vim: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  nvim: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u', '-l') },
  view: { global: d(RUNS, '-c', '--cmd', '+*', '-S', '-u') },
  emacs: { global: d(RUNS, '--eval', '-l', '--load', '-f', '--funcall', '--script', '-x') },
  nano: { global: d(RUNS, '--rcfile', '-f') },
  docker: { globalBeforeSubcommand: true, global: [...d(ELSEWHERE, '--context', '-c', '-H', '--host'), ...d(CONFIG, '--config', '--tlscacert', '--tlscert', '--tlskey')], sub: CONTAINER_SUB },
  podman: { globalBeforeSubcommand: true, global: [...d(ELSEWHERE, '--context', '-c', '-H', '--host', '--connection', '--url', '--root', '--runroot', '--identity'), ...d(CONFIG, '--config', '--module')], sub: CONTAINER_SUB },
  kubectl: { global: KUBE },
  oc: { global: KUBE },
  helm: { global: [...d(ELSEWHERE, '--kube-context', '--kubeconfig', '--kube-apiserver', '--kube-token', '--kube-as-user', '--kube-as-group', '--kube-ca-file', '--kube-insecure-skip-tls-verify'), ...d(CONFIG, '--registry-config', '--repository-config', '--repository-cache'), ...d(RUNS, '--post-renderer')] },
  terraform: { global: [...d(ELSEWHERE, '-chdir', '-state'), ...d(WRITES, '-state-out', '-backup'), ...d(RUNS, '-plugin-dir'), ...d(CONFIG, '-backend-config')] },
  tofu: { global: [...d(ELSEWHERE, '-chdir', '-state'), ...d(WRITES, '-state-out', '-backup'), ...d(RUNS, '-plugin-dir'), ...d(CONFIG, '-backend-config')] },
  pulumi: { global: [...d(ELSEWHERE, '-C', '--cwd', '-s', '--stack'), ...d(CONFIG, '--config-file'), ...d(WRITES, '--tracing', '--profiling')] },
  vercel: { global: [...d(ELSEWHERE, '--cwd', '-S', '--scope', '-t', '--token', '-T', '--team'), ...d(CONFIG, '-A', '--local-config', '-Q', '--global-config')] },
  netlify: { global: [...d(ELSEWHERE, '--cwd', '--auth', '--site', '--filter'), ...d(PROXY, '--http-proxy'), ...d(CONFIG, '--http-proxy-certificate-filename')] },
  fly: { global: [...d(ELSEWHERE, '-a', '--app', '-t', '--access-token', '-r', '--region', '-o', '--org'), ...d(CONFIG, '-c', '--config')] },
  heroku: { global: d(ELSEWHERE, '-a', '--app', '-r', '--remote', '--team') },
  firebase: { global: [...d(ELSEWHERE, '-P', '--project', '--account', '--token'), ...d(CONFIG, '-c', '--config')] },
  wrangler: { global: [...d(ELSEWHERE, '-e', '--env', '--cwd'), ...d(CONFIG, '-c', '--config', '--env-file')] },
  doctl: { global: [...d(ELSEWHERE, '-t', '--access-token', '--context', '-u', '--api-url'), ...d(CONFIG, '-c', '--config')] },
  supabase: { global: [...d(ELSEWHERE, '--workdir', '--db-url', '--project-ref', '--linked')] },
  railway: { global: d(ELSEWHERE, '-s', '--service', '-e', '--environment') },
  cargo: { global: [...d(CONFIG, '--config', '-Z'), ...d(ELSEWHERE, '--manifest-path', '-C', '--target-dir', '--root', '--registry', '--index')] },
  go: { global: [...d(RUNS, '-toolexec', '-exec', '-overlay', '-vettool'), ...when(RUNS, /extld/, '-ldflags'), ...d(ELSEWHERE, '-C', '-modfile')] },
  make: { global: [...d(ELSEWHERE, '-C', '--directory'), ...d(RUNS, '-f', '--file', '--makefile', '--eval', '-E', '-I', '--include-dir')], operand: (w) => (MAKE_PROGRAM_VARIABLE.test(w) ? `${w.slice(0, w.indexOf('='))} names a program the recipes run` : undefined) },
  pip: { global: [...d(ELSEWHERE, '-i', '--index-url', '--extra-index-url', '--target', '-t', '--prefix', '--root', '--python', '--proxy', '--trusted-host', '-f', '--find-links'), ...d(CONFIG, '--config-settings', '-C', '--cert', '--client-cert')] },
  pip3: { global: [...d(ELSEWHERE, '-i', '--index-url', '--extra-index-url', '--target', '-t', '--prefix', '--root', '--python', '--proxy', '--trusted-host', '-f', '--find-links'), ...d(CONFIG, '--config-settings', '-C', '--cert', '--client-cert')] },
  uv: { global: [...d(ELSEWHERE, '--directory', '--project', '--index-url', '--extra-index-url', '--index', '--default-index', '--find-links', '-f'), ...d(CONFIG, '--config-file')] },
  poetry: { global: d(ELSEWHERE, '-C', '--directory', '-P', '--project') },
  gh: { global: d(ELSEWHERE, '-R', '--repo', '--hostname') },
  aws: { global: [...d(ELSEWHERE, '--profile', '--endpoint-url', '--region'), ...d(CONFIG, '--ca-bundle', '--cli-input-json', '--cli-input-yaml')] },
  gcloud: { global: [...d(ELSEWHERE, '--project', '--account', '--configuration', '--impersonate-service-account', '--billing-project'), ...d(CONFIG, '--flags-file', '--access-token-file')] },
  az: { global: d(ELSEWHERE, '--subscription') },
  systemctl: { global: d(ELSEWHERE, '-H', '--host', '-M', '--machine', '--root', '--image') },
  apt: { global: d(RUNS, '-o', '--option', '-c', '--config-file') },
  'apt-get': { global: d(RUNS, '-o', '--option', '-c', '--config-file') },
  zip: { global: d(RUNS, '-TT', '--unzip-command') },
  unzip: { global: d(ELSEWHERE, '-d') },
  patch: { global: d(ELSEWHERE, '-d', '--directory', '-o', '--output') },
};
for (const [alias, of] of [['https', 'http'], ['xh', 'http'], ['xhs', 'http'], ['flyctl', 'fly'], ['netlify-cli', 'netlify']] as const) {
  (DANGEROUS_FLAGS as Record<string, ProgramDangers>)[alias] = DANGEROUS_FLAGS[of]!;
}
