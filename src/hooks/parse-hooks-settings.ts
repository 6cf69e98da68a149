import type { HooksSettingsSource, ParsedHooksSettings } from './types.js';

/** Parses the `hooks` key of each settings source (Claude Code's format) into one merged `HooksConfig`. */
export function parseHooksSettings(bySource: HooksSettingsSource[]): ParsedHooksSettings {
  void bySource;
  return { config: {}, errors: [], warnings: [] };
}
