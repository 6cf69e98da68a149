import { describe, expect, it } from 'vitest';
import { toolgate } from './helpers/cli.js';

describe('toolgate tools', () => {
  it('prints the pool with counts, names and schemas', async () => {
    const { code, stdout } = await toolgate(['tools']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+ tools? in the pool/);
  });
  it('--json prints API tool definitions with object-root schemas', async () => {
    const { code, stdout } = await toolgate(['tools', '--json']);
    expect(code).toBe(0);
    const defs = JSON.parse(stdout) as Array<{ name: string; input_schema: { type: string; $schema?: string } }>;
    expect(Array.isArray(defs)).toBe(true);
    for (const d of defs) {
      expect(d.input_schema.type).toBe('object');
      expect(d.input_schema.$schema).toBeUndefined();
    }
    const sorted = [...defs.map((d) => d.name)].sort();
    expect(defs.map((d) => d.name)).toEqual(sorted);
  });
  it('--help works for the program and the command', async () => {
    expect((await toolgate(['--help'])).stdout).toContain('tools');
    expect((await toolgate(['tools', '--help'])).stdout).toContain('--json');
  });
  it('bad arguments: non-zero exit and a one-line error', async () => {
    const r = await toolgate(['tools', '--bogus']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.split('\n')[0]).toBe("error: unknown option '--bogus'");
    // A first word that names no command is the agent's prompt now (`toolgate "PROMPT"`, as claude), so the bare
    // command's usage error is an unknown flag.
    const u = await toolgate(['--no-such-flag']);
    expect(u.code).not.toBe(0);
    expect(u.stderr.split('\n')[0]).toBe("error: unknown option '--no-such-flag'");
  });
});
