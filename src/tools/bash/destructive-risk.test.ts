/** Bash's `isDestructive` feeds the one risk classification: the dialog's red frame and second step, every face's. */
import { beforeAll, expect, it } from 'vitest';
import { loadBashParser } from '../../permissions/bash/index.js';
import { classifyRisk } from '../../permissions/risk.js';
import { getEmptyToolPermissionContext } from '../../tool/permission-types.js';
import { BashTool } from './index.js';

beforeAll(() => loadBashParser());

it('a destructive command is a destructive call; an everyday one runs code', () => {
  const ctx = getEmptyToolPermissionContext('/tmp');
  expect(classifyRisk(BashTool, { command: 'git reset --hard' }, ctx)).toMatchObject({ level: 'destructive', destructive: true });
  expect(classifyRisk(BashTool, { command: "bash -c 'rm -rf build'" }, ctx)).toMatchObject({ level: 'destructive' });
  expect(classifyRisk(BashTool, { command: 'touch a' }, ctx)).toMatchObject({ level: 'runs-code', destructive: false });
});
