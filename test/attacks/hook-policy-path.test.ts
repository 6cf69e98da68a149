/**
 * `toolgate hook --policy FILE` reads the file as a `--settings` file: above the project's own settings, and its allow
 * rules count for `--allow` (a repository's own `.claude/` or `.toolgate/` allow never does). A relative FILE was
 * resolved against each request's project — the folder the host runs the hook in, and the project `hook serve` finds
 * per request — so a cloned repository that holds a file of that name supplied the policy, and its allow rules turned
 * the hook's answer into allow (a repository widening, against invariant 5). `hook install` writes absolute paths;
 * one written by hand, or given to `hook serve` started elsewhere, was the trap. A relative policy path is now
 * refused: every request is answered the host's fail-closed way, with the reason. Through the real command; fails
 * with relative paths taken as given.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { repoRoot } from '../helpers/cli.js';

/** The command hook from the sources, run in `cwd` as a host runs it (tsx resolved from here, not from `cwd`). */
function hook(args: readonly string[], input: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(repoRoot, 'src/cli/main.ts'), 'hook', ...args], { cwd, env }, (error, stdout) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
    );
    child.stdin?.end(input);
  });
}

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-policy-attack-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("a policy file named relatively is never the repository's", () => {
  it("a repository's file at the relative --policy name: its allow rule does not make the hook allow", async () => {
    const proj = path.join(tmp, 'cloned');
    fs.mkdirSync(path.join(proj, '.git'), { recursive: true });
    fs.writeFileSync(path.join(proj, 'policy.json'), JSON.stringify({ permissions: { allow: ['Bash(touch:*)'] } }));
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home, { recursive: true });
    const request = { hook_event_name: 'PreToolUse', session_id: 's', tool_name: 'Bash', tool_input: { command: 'touch marker' }, cwd: proj };
    const env = { ...process.env, HOME: home, XDG_STATE_HOME: path.join(tmp, 'state') };
    const run = (policy: string) => hook(['--allow', '--no-log', '--managed-settings', path.join(tmp, 'none.json'), '--policy', policy], JSON.stringify(request), proj, env);
    const relative = await run('policy.json');
    expect(relative.code).toBe(0);
    const out = JSON.parse(relative.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    expect(out.hookSpecificOutput.permissionDecision).toBe('ask');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/absolute/);
    // The user's own file, named absolutely, still counts.
    const own = path.join(home, 'team-policy.json');
    fs.writeFileSync(own, JSON.stringify({ permissions: { allow: ['Bash(touch:*)'] } }));
    const absolute = JSON.parse((await run(own)).stdout) as { hookSpecificOutput: { permissionDecision: string } };
    expect(absolute.hookSpecificOutput.permissionDecision).toBe('allow');
  }, 60_000);
});
