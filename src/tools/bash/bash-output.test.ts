import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOutputWindow } from '../shared/output-file.js';
import { formatOutputBody } from './bash-output.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'toolgate-bash-output-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('formatOutputBody', () => {
  it('formats a long failing output from windows as head + marker + tail', () => {
    const file = path.join(dir, 'fail.txt');
    writeFileSync(file, `${'first line\n'.repeat(200_000)}the error\n`);
    const body = formatOutputBody(readOutputWindow(file, 64 * 1024), { limit: 30_000, failed: true, outputFile: file });
    expect(body.truncated).toBe(true);
    expect(body.text.startsWith('first line\n')).toBe(true);
    expect(body.text.trimEnd().endsWith('the error')).toBe(true);
    expect(body.text).toContain(`Full output: ${file}`);
    expect(body.text.length).toBeLessThan(10_500);
  });

});
