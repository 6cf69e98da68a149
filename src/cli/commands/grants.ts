/**
 * `toolgate grants` — the allow rules in effect and where they live:
 *   toolgate grants list [--json]                       every allow rule, its source, file and expiry
 *   toolgate grants add RULE… [--to local|project|user] [--expires ISO_DATE]
 *   toolgate grants revoke RULE [--file FILE]           remove it from the grant files (or that file)
 */
import type { Command } from 'commander';
import { parseExpiry } from '../../permissions/permission-updates.js';
import { grantFiles, GrantError, listGrants, revokeGrant, writeGrants, type GrantDestination } from '../../settings/grants.js';

interface WhereOptions {
  cwd: string;
  projectDir?: string;
  home?: string;
}

const DESTINATIONS: Readonly<Record<string, GrantDestination>> = { local: 'localSettings', project: 'projectSettings', user: 'userSettings' };

function where(opts: WhereOptions): { cwd: string; projectDir: string; homeDir?: string } {
  return { cwd: opts.cwd, projectDir: opts.projectDir ?? opts.cwd, ...(opts.home !== undefined ? { homeDir: opts.home } : {}) };
}

function withWhere(cmd: Command): Command {
  return cmd
    .option('--cwd <dir>', 'working directory', process.cwd())
    .option('--project-dir <dir>', 'project root for .claude/ and .toolgate/ settings (default: cwd)')
    .option('--home <dir>', 'home directory for user settings');
}

export function registerGrantsCommand(program: Command): void {
  const grants = program.command('grants').description('list, add and revoke the allow rules people granted');

  withWhere(grants.command('list').description('every allow rule in effect, with its file and expiry'))
    .option('--json', 'print JSON')
    .action((opts: WhereOptions & { json?: boolean }) => {
      const w = where(opts);
      const { grants: list, errors } = listGrants({ cwd: w.cwd, projectDir: w.projectDir, ...(w.homeDir !== undefined ? { homeDir: w.homeDir } : {}) });
      for (const e of errors) process.stderr.write(`toolgate grants: warning: ${e}\n`);
      if (opts.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
        return;
      }
      if (list.length === 0) {
        process.stdout.write('no allow rules\n');
        return;
      }
      for (const g of list) {
        const expiry = g.expiresAt === undefined ? '' : g.expired ? `  EXPIRED ${g.expiresAt} (ignored)` : `  expires ${g.expiresAt}`;
        process.stdout.write(`${g.rule}  [${g.source}${g.file !== undefined ? ` ${g.file}` : ''}]${expiry}\n`);
      }
    });

  withWhere(grants.command('add').description('write allow rules to a settings file').argument('<rules...>', 'rules, e.g. "Bash(npm test)"'))
    .option('--to <scope>', 'local (.claude/settings.local.json), project or user', 'local')
    .option('--expires <date>', 'ISO date after which the rule is ignored')
    .action((rules: string[], opts: WhereOptions & { to: string; expires?: string }) => {
      const destination = DESTINATIONS[opts.to];
      if (destination === undefined) throw new GrantError(`--to must be local, project or user; got ${JSON.stringify(opts.to)}`);
      // A rule that is ignored from the moment it is written is a mistake (a wrong year, a local date read as UTC).
      const expiry = opts.expires !== undefined ? parseExpiry(opts.expires) : undefined;
      if (expiry !== undefined && Date.parse(expiry) <= Date.now()) throw new GrantError(`--expires ${opts.expires} is in the past (${expiry}); nothing was written`);
      const r = writeGrants({ ...where(opts), destination, rules, ...(opts.expires !== undefined ? { expiresAt: opts.expires } : {}) });
      process.stdout.write(`added ${r.rules.join(', ')} to ${r.file}\n`);
      if (r.gitIgnoredIn !== undefined) process.stdout.write(`${r.file} is now git-ignored (${r.gitIgnoredIn})\n`);
    });

  withWhere(grants.command('revoke').description('remove an allow rule from the grant files').argument('<rule>', 'the rule, e.g. "Bash(npm test)"'))
    .option('--file <file>', 'only this settings file')
    .action((rule: string, opts: WhereOptions & { file?: string }) => {
      const removed = revokeGrant(rule, { ...where(opts), ...(opts.file !== undefined ? { file: opts.file } : {}) });
      if (removed.length === 0) {
        const searched = opts.file ?? grantFiles(where(opts)).map((f) => f.file).join(', ');
        throw new GrantError(`${rule} is not in ${searched}`);
      }
      for (const r of removed) process.stdout.write(`removed ${r.rule} from ${r.file}\n`);
    });
}
