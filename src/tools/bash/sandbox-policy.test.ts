/** toolgate's own state, hidden from sandboxed commands wherever any of the session's environments put it. */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toolgateStatePaths } from './sandbox-policy.js';

describe('toolgateStatePaths', () => {
  it("hides the state directory of every environment the session has (the runtime's options.env too), and the default", () => {
    const paths = toolgateStatePaths('/home/u', '/s/sessions/one', ['/work/p'], [{ XDG_STATE_HOME: '/p-state' }, { XDG_STATE_HOME: '/rt-state' }, { HOME: '/other-home' }, undefined]);
    for (const want of ['/p-state/toolgate', '/rt-state/toolgate', '/home/u/.local/state/toolgate', '/other-home/.local/state/toolgate', '/s/sessions/one', '/home/u/.toolgate']) {
      expect(paths, want).toContain(path.normalize(want));
    }
  });

  it('leaves out a folder that holds a working directory (hiding it would hide the project)', () => {
    const paths = toolgateStatePaths('/home/u', '/s/one', ['/st/toolgate/proj'], [{ XDG_STATE_HOME: '/st' }]);
    expect(paths).not.toContain('/st/toolgate');
  });
});
