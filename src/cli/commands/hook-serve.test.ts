/**
 * `toolgate hook serve`'s own hardening (the red team's report on issue 37): a token file others can read or that is a
 * link is refused, `--socket` removes only a stale socket, never another file.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookServerToken, startHookServer } from './hook-serve.js';

let tmp: string;
beforeAll(() => {
  tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-hook-serve-')));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('the token file', () => {
  it('is made private, and used again while it stays private', () => {
    const env = { XDG_STATE_HOME: path.join(tmp, 'state-ok') };
    const made = hookServerToken('NO_SUCH_TOKEN_VAR', env);
    expect(fs.statSync(made.file!).mode & 0o077).toBe(0);
    expect(hookServerToken('NO_SUCH_TOKEN_VAR', env).token).toBe(made.token);
  });

  it('readable by others, or a symbolic link: refused with a clear error', () => {
    const env = { XDG_STATE_HOME: path.join(tmp, 'state-open') };
    const { file } = hookServerToken('NO_SUCH_TOKEN_VAR', env);
    fs.chmodSync(file!, 0o644);
    expect(() => hookServerToken('NO_SUCH_TOKEN_VAR', env)).toThrow(/readable or writable by others \(mode 644\)/);
    const linked = { XDG_STATE_HOME: path.join(tmp, 'state-link') };
    fs.mkdirSync(path.join(linked.XDG_STATE_HOME, 'toolgate'), { recursive: true });
    fs.writeFileSync(path.join(tmp, 'elsewhere'), 'attacker-token\n', { mode: 0o600 });
    fs.symlinkSync(path.join(tmp, 'elsewhere'), path.join(linked.XDG_STATE_HOME, 'toolgate', 'hook-token'));
    expect(() => hookServerToken('NO_SUCH_TOKEN_VAR', linked)).toThrow(/symbolic link/);
  });
});

describe('--socket', () => {
  it('a file that is not a socket is refused and left as it is', async () => {
    const file = path.join(tmp, 'not-a-socket');
    fs.writeFileSync(file, 'keep me');
    await expect(startHookServer({ token: 't', socket: file, logFile: null })).rejects.toThrow(/not a socket is there; not removed/);
    expect(fs.readFileSync(file, 'utf8')).toBe('keep me');
  });

  it('a stale socket left by an earlier server is replaced', async () => {
    const socket = path.join(tmp, 'stale.sock');
    const old = net.createServer();
    await new Promise<void>((resolve) => old.listen(socket, resolve));
    // Closing a listening server removes its socket file; a crashed server leaves it: keep a copy of the inode by link.
    const stale = path.join(tmp, 'stale-copy.sock');
    fs.linkSync(socket, stale);
    await new Promise<void>((resolve) => old.close(() => resolve()));
    const server = await startHookServer({ token: 't', socket: stale, logFile: null });
    try {
      expect(fs.lstatSync(stale).isSocket()).toBe(true);
    } finally {
      await server.close();
    }
  });
});
