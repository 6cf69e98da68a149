/**
 * Git configuration the Bash tool sets for every command it runs (issue 21): programs a repository's configuration can
 * name and that git runs on its own, whatever the command — `core.fsmonitor` (on every `git status`) and a pager — are
 * switched off, and a bare repository is used only when named with `--git-dir` (`safe.bareRepository=explicit`), so a
 * folder that merely looks like a repository (a vendored bare repo: no `.git` needed) cannot bring its configuration
 * in. Set through GIT_CONFIG_COUNT/KEY_n/VALUE_n, which git ranks above every configuration file and passes on to each
 * git a command starts (pipelines, scripts, `make`, `npm test`); the model cannot change them without a permission
 * (`GIT_*=` assignments and `git -c` are never auto-allowed).
 *
 * What stays on, on purpose: hooks, diff/merge drivers and filters. Commands that run hooks (commit, merge, push, …)
 * are never auto-allowed, so a person or an allow rule approved them, and people want their pre-commit hooks; drivers
 * and filters come from the project's own repository, whose configuration the permission engine reads before it
 * auto-allows a git command (permissions/bash/git-repo.ts), and another repository's git commands always ask.
 *
 * Git that toolgate runs itself goes through tool/git-runner.ts instead, which switches off every program; the
 * settings the two share are defined there.
 */

import { GIT_COMMAND_SETTINGS as SETTINGS } from '../../tool/git-runner.js';

/** Adds the settings to a command's environment (after any the environment already carries, so they win). */
export function withGitSafetyConfig(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const inherited = env.GIT_CONFIG_COUNT === undefined ? 0 : Number(env.GIT_CONFIG_COUNT);
  // A count git would refuse ("bogus count") is dropped rather than make every git command fail.
  let n = Number.isInteger(inherited) && inherited >= 0 ? inherited : 0;
  for (const [key, value] of SETTINGS) {
    env[`GIT_CONFIG_KEY_${n}`] = key;
    env[`GIT_CONFIG_VALUE_${n}`] = value;
    n++;
  }
  env.GIT_CONFIG_COUNT = String(n);
  // `-c` settings inherited from a parent git outrank the count: ours go after them there too.
  if (env.GIT_CONFIG_PARAMETERS !== undefined && env.GIT_CONFIG_PARAMETERS !== '') {
    env.GIT_CONFIG_PARAMETERS += SETTINGS.map(([key, value]) => ` '${key}'='${value}'`).join('');
  }
  // A pseudo-terminal (`script -c 'git log'`) would start the pager `pager.<command>` names: GIT_PAGER outranks it.
  env.GIT_PAGER = 'cat';
  return env;
}
