import { afterEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../tools/bash/sandbox.js';
import { sandboxCheck } from './sandbox.js';

afterEach(async () => {
  await detectSandbox({ refresh: true });
});

describe('toolgate sandbox check', () => {
  it('reports what is missing, in one line', async () => {
    await detectSandbox({ refresh: true, env: { PATH: '/nonexistent' } });
    const r = await sandboxCheck();
    expect(r.ok).toBe(false);
    expect(r.line).toBe('sandbox: unavailable: bwrap (package bubblewrap) is not installed or not on PATH');
  });

  it('agrees with the probe, and proves availability by running a command inside', async () => {
    const availability = await detectSandbox({ refresh: true });
    const r = await sandboxCheck();
    expect(r.ok).toBe(availability.available);
    expect(r.line.split('\n')).toHaveLength(1);
    if (availability.available) expect(r.line).toContain('sandbox: available');
  });
});
