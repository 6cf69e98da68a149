// Typed settings from outside the package: the built-in tools' settings types reach `ToolSettings` through the entry.
import { describe, expectTypeOf, it } from 'vitest';
import type { BashToolSettings, SandboxSettings, ToolRuntimeOptions, ToolSettings } from '../src/index.js';

describe('settings types from the entry', () => {
  it('ToolSettings carries the built-in tools’ keys', () => {
    expectTypeOf<ToolSettings['bash']>().toEqualTypeOf<BashToolSettings | undefined>();
    expectTypeOf<ToolSettings['sandbox']>().toEqualTypeOf<SandboxSettings | undefined>();
    expectTypeOf<ToolSettings>().toHaveProperty('globTimeoutMs');
    expectTypeOf<ToolSettings>().toHaveProperty('maxResultSizeChars');
    expectTypeOf<ToolSettings>().toHaveProperty('env');
    // @ts-expect-error — a wrong type is caught at compile time
    const wrong: ToolSettings = { bash: { defaultTimeoutMs: 'soon' } };
    void wrong;
    expectTypeOf<NonNullable<ToolRuntimeOptions['settings']>['sources']>().toEqualTypeOf<readonly ('user' | 'project' | 'local' | 'managed')[] | undefined>();
  });
});
