import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BashTool, validateBashInput } from './index.js';
import type { BashOutput } from './bash-output.js';
import { callTool, makeProject, type TestProject } from './test-helpers/project.js';

let project: TestProject;
beforeEach(() => {
  project = makeProject();
});
afterEach(async () => {
  await project.cleanup();
});

const run = (command: string, extra: Record<string, unknown> = {}, p: TestProject = project) =>
  callTool<BashOutput>(BashTool, { command, ...extra }, p.context);

describe('Bash results', () => {
  it('returns the output of a successful command and no error', async () => {
    const r = await run('echo hello');
    expect(r.text).toBe('hello');
    expect(r.block.is_error).toBeUndefined();
    expect(r.data.exitCode).toBe(0);
  });

  it('puts "Exit code N" first and marks a failing command as an error', async () => {
    const r = await run('echo partial; exit 3');
    expect(r.text).toBe('Exit code 3\npartial');
    expect(r.block.is_error).toBe(true);
  });

  it('merges stdout and stderr in the order they were written', async () => {
    const r = await run('echo one; echo two >&2; echo three; echo four >&2');
    expect(r.text).toBe('one\ntwo\nthree\nfour');
  });

  it('runs bash by its absolute path, the first bash on the PATH of the command (no search of PATH per command)', async () => {
    const r = await run('echo "$0"');
    expect(path.isAbsolute(r.text)).toBe(true);
    expect(path.basename(r.text)).toBe('bash');
    const first = (process.env.PATH ?? '').split(':').map((d) => path.join(d, 'bash')).find((f) => existsSync(f));
    expect(r.text).toBe(first);
  });

  it('says when a command printed nothing', async () => {
    expect((await run('true')).text).toBe('(Bash completed with no output)');
  });

  it('treats exit code 1 of grep, diff, test and git diff as an answer, not an error', async () => {
    writeFileSync(path.join(project.dir, 'a.txt'), 'alpha\n');
    writeFileSync(path.join(project.dir, 'b.txt'), 'beta\n');
    const grep = await run('grep -c zzz a.txt');
    expect(grep.block.is_error).toBeUndefined();
    expect(grep.text).toBe('0');
    expect(grep.data.returnCodeInterpretation).toBe('No matches found');
    const silent = await run('grep -q zzz a.txt');
    expect(silent.text).toBe('(No matches found)');
    const diff = await run('diff a.txt b.txt');
    expect(diff.block.is_error).toBeUndefined();
    expect(diff.text).toContain('< alpha');
    expect((await run('test -e missing.txt')).block.is_error).toBeUndefined();
    expect((await run('[ -e missing.txt ]')).block.is_error).toBeUndefined();
    const gitDiff = await run('git diff --no-index a.txt b.txt');
    expect(gitDiff.block.is_error).toBeUndefined();
    expect(gitDiff.text).toContain('+beta');
    // The same exit code from anything else is a failure, and exit 2 from grep is one too.
    expect((await run('false')).block.is_error).toBe(true);
    const badGrep = await run('grep x no-such-file');
    expect(badGrep.block.is_error).toBe(true);
    expect(badGrep.text.startsWith('Exit code 2')).toBe(true);
  });

  it('reports a syntax error with the command’s own line numbers', async () => {
    const r = await run("echo fine\necho 'unterminated");
    expect(r.block.is_error).toBe(true);
    expect(r.text).toMatch(/^Exit code 2\n/);
    expect(r.text).toContain('line 2');
    expect((await run('echo $LINENO')).text).toBe('1');
  });

  it('collapses \\r-overwritten progress lines before measuring', async () => {
    const r = await run(`printf 'progress 10%%\\rprogress 50%%\\rprogress 100%%\\r\\nnext\\r\\n'`);
    expect(r.text).toBe('progress 100%\nnext');
  });

  it('bounds binary garbage: NUL bytes are replaced and the text stays valid', async () => {
    const r = await run(`printf 'a\\0b\\377c\\n'`);
    expect(r.text).not.toContain('\0');
    expect(r.text.startsWith('a')).toBe(true);
    expect(r.text).toContain('c');
  });
});

describe('long output', () => {
  it('persists a successful command’s long output and returns the path with a preview', async () => {
    const r = await run('seq 1 20000');
    expect(r.data.truncated).toBe(true);
    expect(r.text).toContain('<persisted-output>');
    const file = r.data.outputFile!;
    expect(r.text).toContain(`Full output saved to: ${file}`);
    expect(r.text.length).toBeLessThan(3_000);
    expect(r.text).toContain('\n1\n2\n3\n');
    const full = readFileSync(file, 'utf8');
    expect(full.endsWith('19999\n20000\n')).toBe(true);
    expect(r.block.is_error).toBeUndefined();
  });

  it('keeps output up to the inline limit whole, and honours bashOutputMaxChars', async () => {
    const whole = await run('seq 1 5000'); // 23,893 characters
    expect(whole.data.truncated).toBe(false);
    expect(whole.text.endsWith('4999\n5000')).toBe(true);
    const small = makeProject({ settings: { bashOutputMaxChars: 4_000 } });
    try {
      const cut = await run('seq 1 5000', {}, small);
      expect(cut.data.truncated).toBe(true);
    } finally {
      await small.cleanup();
    }
  });

  it('returns a failing command’s long output as a head-and-tail excerpt', async () => {
    const r = await run('seq 1 30000; echo FINAL-ERROR-LINE >&2; exit 4');
    expect(r.block.is_error).toBe(true);
    expect(r.text.startsWith('Exit code 4\n1\n2\n3\n')).toBe(true);
    expect(r.text).toContain('FINAL-ERROR-LINE');
    expect(r.text).toContain('output truncated');
    expect(r.text).toContain(r.data.outputFile!);
    expect(r.text).not.toContain('\n15000\n');
    expect(r.text.length).toBeLessThan(11_000);
  });

  it('deletes the output file when the result holds all of it', async () => {
    await run('echo small');
    const files = readdirSync(path.join(project.sessionDir, 'tasks'));
    expect(files).toEqual([]);
  });

  it('kills a command whose output passes the output-file cap', async () => {
    const capped = makeProject({ settings: { bash: { maxOutputFileBytes: 200_000, progressIntervalMs: 20, killGraceMs: 100 } } });
    try {
      const r = await run('yes', {}, capped);
      expect(r.block.is_error).toBe(true);
      expect(r.text).toContain('byte limit of the output file');
      expect(r.data.truncated).toBe(true);
    } finally {
      await capped.cleanup();
    }
  });
});

describe('image output', () => {
  it('turns PNG bytes on stdout into an image block', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 0, g: 128, b: 255 } } }).png().toBuffer();
    writeFileSync(path.join(project.dir, 'pic.png'), png);
    const r = await run('cat pic.png');
    expect(r.data.isImage).toBe(true);
    const content = r.block.content as { type: string; source?: { media_type: string; data: string } }[];
    expect(content[0]?.type).toBe('image');
    expect(content[0]?.source?.media_type).toBe('image/png');
    expect(Buffer.from(content[0]!.source!.data, 'base64').equals(png)).toBe(true);
  });

  it('turns a data:image URL into an image block', async () => {
    const jpeg = await sharp({ create: { width: 2, height: 2, channels: 3, background: { r: 1, g: 2, b: 3 } } }).jpeg().toBuffer();
    const r = await run(`echo 'data:image/jpeg;base64,${jpeg.toString('base64')}'`);
    const content = r.block.content as { type: string; source?: { media_type: string } }[];
    expect(content[0]?.type).toBe('image');
    expect(content[0]?.source?.media_type).toBe('image/jpeg');
  });

  it('scales down an image larger than the API accepts', async () => {
    const big = await sharp({ create: { width: 9000, height: 100, channels: 3, background: { r: 9, g: 9, b: 9 } } }).png().toBuffer();
    writeFileSync(path.join(project.dir, 'wide.png'), big);
    const r = await run('cat wide.png');
    expect(r.data.isImage).toBe(true);
    const meta = await sharp(Buffer.from(r.data.image!.base64, 'base64')).metadata();
    expect(meta.width).toBeLessThanOrEqual(2000);
    expect(r.text).toContain('scaled down');
  });
});

describe('input validation and permissions', () => {
  const validate = (input: Record<string, unknown>) => validateBashInput(BashTool.inputSchema.parse(input), project.context);

  it('rejects an empty command, NUL bytes and timeouts beyond the maximum', () => {
    expect(validate({ command: '   ' })).toMatchObject({ result: false, message: 'The command is empty.' });
    expect(validate({ command: 'echo a\0b' })).toMatchObject({ result: false });
    expect(validate({ command: 'ls', timeout: 600_001 })).toMatchObject({ result: false });
    expect(validate({ command: 'ls', timeout: -5 })).toMatchObject({ result: false });
    expect(validate({ command: 'ls', timeout: 600_000 })).toEqual({ result: true });
    expect(validate({ command: 'ls', timeout: 7_200_000, run_in_background: true })).toEqual({ result: true });
    expect(validate({ command: 'ls', timeout: 7_200_001, run_in_background: true })).toMatchObject({ result: false });
  });

  it('refuses run_in_background when background tasks are disabled', () => {
    const off = makeProject({ settings: { bash: { disableBackgroundTasks: true } } });
    try {
      const r = validateBashInput(BashTool.inputSchema.parse({ command: 'ls', run_in_background: true }), off.context);
      expect(r).toMatchObject({ result: false });
    } finally {
      void off.cleanup();
    }
  });

  it('always asks before running outside the sandbox', async () => {
    const ask = await BashTool.checkPermissions(BashTool.inputSchema.parse({ command: 'ls', dangerouslyDisableSandbox: true }), project.context);
    expect(ask.behavior).toBe('ask');
    const plain = await BashTool.checkPermissions(BashTool.inputSchema.parse({ command: 'ls' }), project.context);
    expect(plain.behavior).toBe('allow');
  });

  it('reads its inline limit from the environment at load (static maxResultSizeChars)', () => {
    expect(BashTool.maxResultSizeChars).toBeGreaterThanOrEqual(4_000);
    expect(BashTool.maxResultSizeChars).toBeLessThanOrEqual(128_000);
  });
});

describe('progress', () => {
  it('reports the latest lines while a command runs', async () => {
    const r = await run('echo first; sleep 0.25; echo second; sleep 0.25; echo third');
    expect(r.text).toBe('first\nsecond\nthird');
    const outputs = r.progress.map((p) => String(p.data.output));
    expect(outputs.length).toBeGreaterThanOrEqual(2);
    expect(outputs[0]).toContain('first');
    expect(outputs.at(-1)).toContain('third');
    expect(r.progress.every((p) => p.data.type === 'bash_progress')).toBe(true);
  });
});

describe('no leftovers', () => {
  it('ends processes a command left running with & when the call ends', async () => {
    const marker = `${Date.now() % 100000}.4242`;
    const r = await run(`sleep ${marker} & echo started`);
    expect(r.text).toBe('started');
    const { processesWithMarker, waitFor } = await import('./test-helpers/project.js');
    await waitFor(() => processesWithMarker(`sleep ${marker}`).length === 0, 2_000, 'the & child to end');
    expect(existsSync(project.dir)).toBe(true);
  });
});

describe('progress of a background task', () => {
  it('stops reporting to the call once the command went to the background', async () => {
    const r = await run('echo a; sleep 0.3; echo b', { run_in_background: true });
    await project.tasks.wait(r.data.backgroundTaskId!, { timeoutMs: 5_000 });
    expect(r.progress).toEqual([]);
  });
});
