/**
 * Claude Code's BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS, which scripts set for `claude -p`: honoured under the
 * settings (`toolgate.bash.defaultTimeoutMs` / `maxTimeoutMs` win), ignored when not a positive number.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeContext, makeTempDir, runTool } from '../shared/test-helpers/run-tool.js';
import { DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS, timeoutLimits } from './bash-settings.js';
import { BashTool } from './index.js';

afterEach(() => vi.unstubAllEnvs());

describe('BASH_DEFAULT_TIMEOUT_MS and BASH_MAX_TIMEOUT_MS', () => {
  it('set the default and the maximum, under the settings; nonsense is ignored', () => {
    expect(timeoutLimits({}, {})).toEqual({ defaultMs: DEFAULT_TIMEOUT_MS, maxMs: MAX_TIMEOUT_MS });
    expect(timeoutLimits({}, { BASH_DEFAULT_TIMEOUT_MS: '5000', BASH_MAX_TIMEOUT_MS: '900000' })).toEqual({ defaultMs: 5000, maxMs: 900_000 });
    // The default never exceeds the maximum.
    expect(timeoutLimits({}, { BASH_DEFAULT_TIMEOUT_MS: '50000', BASH_MAX_TIMEOUT_MS: '20000' })).toEqual({ defaultMs: 20_000, maxMs: 20_000 });
    expect(timeoutLimits({ bash: { maxTimeoutMs: 30_000 } }, { BASH_MAX_TIMEOUT_MS: '900000' }).maxMs).toBe(30_000);
    expect(timeoutLimits({}, { BASH_DEFAULT_TIMEOUT_MS: 'soon', BASH_MAX_TIMEOUT_MS: '-1' })).toEqual({ defaultMs: DEFAULT_TIMEOUT_MS, maxMs: MAX_TIMEOUT_MS });
  });

  it('bound the timeout a call may ask for', async () => {
    const dir = await makeTempDir();
    vi.stubEnv('BASH_MAX_TIMEOUT_MS', '1000');
    const r = await runTool(BashTool, { command: 'true', timeout: 5000 }, makeContext(dir));
    expect(r.isError).toBe(true);
    expect(r.text).toContain('timeout 5000 ms is beyond the maximum of 1000 ms.');
  });
});
