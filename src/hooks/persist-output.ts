/**
 * Hook output strings over 10,000 characters (reference A6) are written to `<sessionDir>/hook-outputs/` and replaced
 * by a preview with the path and full size, the same shape the executor uses for large tool results.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatCount } from '../tool/format-count.js';
import { randomBytes } from '../tool/crypto.js';

export const MAX_HOOK_OUTPUT_CHARS = 10_000;
const PREVIEW_CHARS = 2_000;

export async function capHookOutput(text: string, sessionDir: string, name: string): Promise<string> {
  if (text.length <= MAX_HOOK_OUTPUT_CHARS) return text;
  const dir = join(sessionDir, 'hook-outputs');
  const file = join(dir, `${name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 80)}-${randomBytes(4).toString('hex')}.txt`);
  const size = formatCount(text.length);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(file, text, 'utf8');
  } catch (err) {
    // Cannot persist: still never hand the model more than the cap.
    return `${text.slice(0, MAX_HOOK_OUTPUT_CHARS)}\n... [hook output truncated: ${size} characters; saving it failed: ${(err as Error).message}]`;
  }
  return [
    '<persisted-output>',
    `Hook output too large (${size} characters). Full output saved to: ${file}`,
    '',
    `Preview (first ${formatCount(PREVIEW_CHARS)} characters):`,
    text.slice(0, PREVIEW_CHARS),
    '...',
    '</persisted-output>',
  ].join('\n');
}
