import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { ReadTool } from './read-tool.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir();
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const read = (input: Record<string, unknown>) => runTool(ReadTool, input, makeContext(dir));

/** Fails the test instead of hanging it when a refusal would block. */
async function quickly<T>(promise: Promise<T>, ms = 3000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`blocked for more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('Read refuses, at once and with a clear error', () => {
  it("a directory: Claude Code's words (EISDIR, no <tool_use_error>), then the tools that list one", async () => {
    const r = await read({ file_path: dir });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      `EISDIR: illegal operation on a directory, read '${dir}'\n` +
        `${dir} is a directory, not a file. To see what it contains, use Bash with \`ls ${dir}\` or the Glob tool (pattern "*", path "${dir}").`,
    );
  });

  it('a directory whose name bash would split: the ls it names is quoted as one word', async () => {
    const spaced = path.join(dir, "it's here");
    fs.mkdirSync(spaced);
    const r = await read({ file_path: spaced });
    expect(r.text.split('\n')[1]).toContain(`use Bash with \`ls '${dir}/it'\\''s here'\``);
  });

  it('a FIFO, without ever blocking on it', async () => {
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const r = await quickly(read({ file_path: fifo }));
    expect(r.text).toBe(
      `<tool_use_error>Cannot read ${fifo}: it is a FIFO (named pipe), not a regular file. Only regular files can be read with this tool.</tool_use_error>`,
    );
  });

  it('a socket', async () => {
    const sock = path.join(dir, 's.sock');
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(sock, resolve));
    try {
      const r = await quickly(read({ file_path: sock }));
      expect(r.text).toContain(`Cannot read ${sock}: it is a socket, not a regular file.`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('device files such as /dev/zero and /dev/stdin, and other devices by type', async () => {
    for (const device of ['/dev/zero', '/dev/stdin', '/dev/urandom', '/proc/self/fd/0']) {
      const r = await quickly(read({ file_path: device }));
      expect(r.text).toBe(`<tool_use_error>Cannot read ${device}: device files like this one block or never end.</tool_use_error>`);
    }
    const r = await quickly(read({ file_path: '/dev/null' }));
    expect(r.text).toContain('Cannot read /dev/null: it is a character device, not a regular file.');
  });

  it('binary files by extension', async () => {
    const file = path.join(dir, 'app.exe');
    fs.writeFileSync(file, 'MZ plain looking text');
    const r = await read({ file_path: file });
    expect(r.text).toBe(
      '<tool_use_error>This tool cannot read binary files. The file appears to be a binary .exe file. Please use appropriate tools for binary file analysis.</tool_use_error>',
    );
  });

  it('binary files by content: a NUL byte, or more than 10% control bytes in the first 8 KiB', async () => {
    const nul = path.join(dir, 'data.txt');
    fs.writeFileSync(nul, Buffer.from('hello\0world\n'));
    const r = await read({ file_path: nul });
    expect(r.text).toBe(
      `<tool_use_error>This tool cannot read binary files. ${nul} appears to be binary (its first 8 KiB contain a NUL byte or more than 10% control characters). Please use appropriate tools for binary file analysis.</tool_use_error>`,
    );
    const control = path.join(dir, 'ctl.txt');
    fs.writeFileSync(control, Buffer.from(Array.from({ length: 100 }, (_, i) => (i % 5 === 0 ? 1 : 65))));
    expect((await read({ file_path: control })).text).toContain('appears to be binary');
    // ANSI colour codes and tabs are text.
    const ansi = path.join(dir, 'colours.log');
    fs.writeFileSync(ansi, '\x1b[31mred\x1b[0m\tok\n'.repeat(50));
    expect((await read({ file_path: ansi })).isError).toBe(false);
  });

  it('a missing file, naming the cwd and a likely intended file', async () => {
    fs.writeFileSync(path.join(dir, 'config.json'), '{}');
    const r = await read({ file_path: path.join(dir, 'config.yaml') });
    // Unwrapped, as Claude Code sends it (its recording: test/parity/cli/tool-results.json).
    expect(r.text).toBe(`File does not exist. Note: your current working directory is ${dir}. Did you mean ${path.join(dir, 'config.json')}?`);
    expect(r.isError).toBe(true);
    const none = await read({ file_path: path.join(dir, 'nothing-like-it') });
    expect(none.text).toBe(`File does not exist. Note: your current working directory is ${dir}.`);
    // A path through a file (ENOTDIR) is a missing file too, not an I/O error.
    const under = await read({ file_path: path.join(dir, 'config.json', 'inner.txt') });
    expect(under.text).toMatch(/^File does not exist\./);
  });

  it('bad paths before touching the filesystem', async () => {
    expect((await read({ file_path: '' })).text).toBe('<tool_use_error>file_path must not be empty.</tool_use_error>');
    expect((await read({ file_path: '/tmp/a\0b' })).text).toBe('<tool_use_error>file_path must not contain NUL bytes.</tool_use_error>');
    expect((await read({ file_path: '/x', extra: 1 })).text).toContain('InputValidationError');
  });
});
