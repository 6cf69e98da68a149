import type { BashAnalysis } from './types.js';

export function analyzeBashCommand(command: string): BashAnalysis {
  return { ok: false, reason: 'not implemented', rawSegments: [command] };
}
