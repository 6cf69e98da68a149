import { afterEach, beforeEach, expect, it } from 'vitest';
import { redactorFor } from '../../execution/redaction.js';
import type { BashOutput } from './bash-output.js';
import { buildChildEnv } from './child-env.js';
import { BashTool } from './index.js';
import { callTool, makeProject, type TestProject } from './test-helpers/project.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  delete process.env.TOOLGATE_CHILD_ENV_LATE;
  delete process.env.TOOLGATE_CHILD_ENV_LATE_URL;
  await project.cleanup();
});

it('reads each variable once: the copy, the scrubbed list and the values registered for redaction come from one read', () => {
  const reads = new Map<string, number>();
  const source: NodeJS.ProcessEnv = { PATH: '/bin', DEPLOY_TOKEN: 'tok-5f4e3d2c1b', MIRROR: 'https://bob:pw-9a8b7c6d@mirror.example/x', HOME: '/home/x' };
  const counted = new Proxy(source, {
    get(target, name, receiver) {
      if (typeof name === 'string') reads.set(name, (reads.get(name) ?? 0) + 1);
      return Reflect.get(target, name, receiver);
    },
  });
  const { env, scrubbed } = buildChildEnv(counted);
  expect(env).toEqual({ PATH: '/bin', HOME: '/home/x', TOOLGATE: '1' });
  expect(scrubbed).toEqual(['DEPLOY_TOKEN', 'MIRROR']);
  expect(Object.fromEntries(reads)).toEqual({ PATH: 1, DEPLOY_TOKEN: 1, MIRROR: 1, HOME: 1 });
  // The scrubbed values (and the password inside the URL) are redacted from results from now on.
  const redactor = redactorFor(project.context)!;
  expect(redactor.redactText('a tok-5f4e3d2c1b b pw-9a8b7c6d')).toBe('a [REDACTED:DEPLOY_TOKEN] b [REDACTED:MIRROR]');
});

it('a variable put in process.env just before a command reaches it; a credential put there is scrubbed from it', async () => {
  const run = (command: string) => callTool<BashOutput>(BashTool, { command }, project.context);
  expect((await run('printf "%s" "${TOOLGATE_CHILD_ENV_LATE-unset}"')).text).toBe('unset');
  process.env.TOOLGATE_CHILD_ENV_LATE = 'now-set';
  process.env.TOOLGATE_CHILD_ENV_LATE_URL = 'postgres://app:s3cr3t-pw-771@db.internal/app';
  expect((await run('printf "%s|%s" "$TOOLGATE_CHILD_ENV_LATE" "${TOOLGATE_CHILD_ENV_LATE_URL-scrubbed}"')).text).toBe('now-set|scrubbed');
});
