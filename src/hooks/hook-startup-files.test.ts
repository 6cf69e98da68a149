/**
 * A hook's bash reads no start-up file. Its stdin is a socket (libuv's stdio pipes are socketpairs), and bash at
 * shell level 1 with a socket on stdin takes itself for an ssh session and runs ~/.bashrc — which on a developer's
 * machine may run pyenv or nvm and wait on their locks. Started where SHLVL is 0 or missing (a service, CI), a hook
 * must still not do that.
 */
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { hooksFor, makeHookFixture, type HookFixture } from './test-helpers/hook-fixture.js';

let fx: HookFixture;
beforeEach(async () => {
  fx = await makeHookFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

for (const shlvl of ['0', undefined]) {
  it(`a command hook does not run ~/.bashrc (SHLVL ${shlvl ?? 'missing'})`, async () => {
    const home = join(fx.dir, 'home');
    await mkdir(home);
    const marker = join(fx.dir, 'bashrc-ran');
    await writeFile(join(home, '.bashrc'), `touch "${marker}"\n`);
    const hook = await fx.script('hook.sh', `echo ran > "${fx.dir}/hook-ran"`);
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home };
    if (shlvl !== undefined) env.SHLVL = shlvl;
    const runner = fx.runner(hooksFor('PreToolUse', 'Bash', { command: hook }), { env });
    const out = await runner.preToolUse(fx.event(), new AbortController().signal);
    expect(out.nonBlockingErrors).toEqual([]);
    expect((await fx.read('hook-ran')).trim()).toBe('ran');
    expect(existsSync(marker)).toBe(false);
  });
}
