/** `toolgate grants add | list | revoke` through the real CLI, against real settings files in a temp project. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { toolgate } from './helpers/cli.js';

let tmp: string;
let proj: string;
let home: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-cli-grants-')));
  proj = path.join(tmp, 'proj');
  home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, '.claude'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(proj, '.claude', 'settings.json'), JSON.stringify({ model: 'x', permissions: { allow: ['Bash(npm test)'] } }, null, 2));
}, 240_000);
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const where = () => ['--cwd', proj, '--home', home];

it('adds, lists (with files and expiry) and revokes grants', async () => {
  // An expiry in the past is refused, and nothing is written.
  const past = await toolgate(['grants', 'add', 'Bash(make deploy)', '--to', 'user', '--expires', '2000-01-01T00:00:00Z', ...where()]);
  expect(past.code).toBe(1);
  expect(past.stderr).toMatch(/--expires 2000-01-01T00:00:00Z is in the past/);
  expect(fs.existsSync(path.join(home, '.toolgate', 'settings.json'))).toBe(false);
  const add = await toolgate(['grants', 'add', 'Bash(make deploy)', '--to', 'user', '--expires', '2999-01-01T00:00:00Z', ...where()]);
  expect(add.code).toBe(0);
  expect(add.stdout).toContain(path.join(home, '.toolgate', 'settings.json'));
  // A grant that has expired since (written as it would have been then) is listed as such.
  const userFile = path.join(home, '.toolgate', 'settings.json');
  fs.writeFileSync(userFile, fs.readFileSync(userFile, 'utf8').replace('2999-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z'));

  const list = await toolgate(['grants', 'list', '--json', ...where()]);
  expect(list.code).toBe(0);
  expect(JSON.parse(list.stdout)).toEqual([
    { rule: 'Bash(npm test)', source: 'projectSettings', file: path.join(proj, '.claude', 'settings.json'), expired: false },
    { rule: 'Bash(make deploy)', source: 'userSettings', file: path.join(home, '.toolgate', 'settings.json'), expiresAt: '2000-01-01T00:00:00.000Z', expired: true },
  ]);
  const words = await toolgate(['grants', 'list', ...where()]);
  expect(words.stdout).toMatch(/Bash\(make deploy\).*EXPIRED 2000-01-01T00:00:00.000Z/);

  const revoke = await toolgate(['grants', 'revoke', 'Bash(npm test)', ...where()]);
  expect(revoke.code).toBe(0);
  expect(revoke.stdout).toBe(`removed Bash(npm test) from ${path.join(proj, '.claude', 'settings.json')}\n`);
  expect(JSON.parse(fs.readFileSync(path.join(proj, '.claude', 'settings.json'), 'utf8'))).toEqual({ model: 'x', permissions: { allow: [] } });
  const again = await toolgate(['grants', 'revoke', 'Bash(npm test)', ...where()]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('is not in');

  const refused = await toolgate(['grants', 'add', 'Bash', ...where()]);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('all of Bash');
}, 240_000);
