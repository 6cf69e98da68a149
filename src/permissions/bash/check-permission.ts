import type { PermissionResult, ToolPermissionContext } from '../../tool/permission-types.js';
import type { BashPermissionDeps } from './types.js';

export function checkBashPermission(command: string, _ctx: ToolPermissionContext, _deps: BashPermissionDeps): PermissionResult {
  return {
    behavior: 'ask',
    message: `Bash permission checking is not implemented yet: ${command.slice(0, 80)}`,
    decisionReason: { layer: 'safetyCheck', reason: 'not implemented' },
  };
}
