import type { ReadOnlyOptions } from './types.js';

export function isReadOnlyCommand(_command: string, _opts?: ReadOnlyOptions): boolean {
  return false;
}
