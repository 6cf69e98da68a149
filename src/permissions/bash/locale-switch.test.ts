import { beforeAll, describe, expect, it } from 'vitest';
import { analyzeBashCommand } from './analyze.js';
import { loadBashParser } from './index.js';
import { isSafeLocaleValue } from './locale-switch.js';

beforeAll(async () => {
  await loadBashParser();
});

/** The analyser's reason when it refuses the command; undefined when it analyses it. */
const reason = (command: string): string | undefined => {
  const a = analyzeBashCommand(command);
  return a.ok ? undefined : a.reason;
};

describe('a locale switch inside one command (locale-switch.ts)', () => {
  it('C, POSIX and UTF-8 locales are safe; BIG5, GBK, GB18030 and anything with more are not', () => {
    for (const v of ['', 'C', 'POSIX', 'C.UTF-8', 'en_US.utf8', 'sr_RS.UTF-8@latin']) expect(isSafeLocaleValue(v), v).toBe(true);
    for (const v of ['zh_TW.BIG5', 'zh_CN.GBK', 'zh_CN.GB18030', 'zh_HK.BIG5-HKSCS', 'ja_JP.eucJP', 'C.UTF-8 x', 'zh_TW']) expect(isSafeLocaleValue(v), v).toBe(false);
  });

  it('refuses a command that sets such a locale and runs more after it, however the variable is set', () => {
    for (const command of [
      'LC_ALL=zh_TW.BIG5; echo hi',
      'export LC_ALL=zh_TW.BIG5\necho hi',
      'LANG=zh_CN.GBK && ls',
      'LC_CTYPE="$X"; echo hi',
      'declare LC_ALL=zh_TW.BIG5; echo hi',
      'declare -n r=LC_ALL; r=zh_TW.BIG5; echo hi',
      'read LC_ALL < f; echo hi',
      'printf -v LC_ALL %s zh_TW.BIG5; echo hi',
      'for LC_ALL in zh_TW.BIG5; do echo hi; done',
      'echo ${LC_ALL:=zh_TW.BIG5}; echo hi',
      "LC_ALL=zh_TW.BIG5 bash -c 'echo hi'",
    ]) {
      expect(reason(command), command).toContain('locale');
    }
  });

  it('leaves alone safe values, a switch with nothing after it, and a locale set for one program', () => {
    for (const command of ['LC_ALL=C; sort f', 'export LANG=en_US.UTF-8\nls', 'LC_ALL=C sort f', 'echo hi; export LC_ALL=zh_TW.BIG5', 'echo LC_ALL=zh_TW.BIG5; ls', 'LC_ALL=zh_TW.BIG5 ls']) {
      expect(reason(command), command).toBeUndefined();
    }
  });
});
