/**
 * The settings files behind a long-lived engine's contexts (`toolgate hook serve`, `toolgate check --batch`), and
 * whether any changed since they were read. A CheckEngine reads a context's settings files once and keeps the context
 * by its cwd's text; a file edited, appearing or going, or a linked project folder (or `.claude/`) retargeted, must
 * make it read them again, or a later request is judged by another project's rules (docs/security.md).
 */
import fs from 'node:fs';
import type { LoadedSettings } from '../../settings/load-settings.js';
import { isInlineJson } from '../../tool/read-config-file.js';

/** How recent a settings file's change must be for its load to be read again on the next request. */
const SETTLE_MS = 2000;

export class SettingsWatch {
  readonly #seen = new Map<string, string>();

  /** Called with each load (CheckDefaults.onSettingsLoaded): the files it read and the ones it looked for. */
  record(loaded: LoadedSettings): void {
    const settled = Date.now() - SETTLE_MS;
    for (const f of loaded.files) {
      if (isInlineJson(f.file) || this.#seen.has(f.file)) continue;
      const sig = signature(f.file);
      // Changed around the load (the signature is taken after the read): the read may have seen the version before,
      // and on a filesystem with whole-second times a change within the same second keeps every time. Such a file
      // gets a signature that never matches again.
      this.#seen.set(f.file, changedAfter(f.file, settled) ? 'unsettled' : sig);
    }
  }

  /** True (and forgets what it knew) when a file changed, appeared or went. */
  changed(): boolean {
    for (const [file, sig] of this.#seen) {
      if (signature(file) !== sig) {
        this.#seen.clear();
        return true;
      }
    }
    return false;
  }
}

function changedAfter(file: string, time: number): boolean {
  try {
    const s = fs.statSync(file, { throwIfNoEntry: false });
    return s !== undefined && Math.max(s.mtimeMs, s.ctimeMs) >= time;
  } catch {
    return false;
  }
}

/**
 * Asked of every settings file on every check, most of them absent: no error made for those. Through links (the
 * file read is the target); the device too, as an inode number is unique only on its own filesystem.
 */
function signature(file: string): string {
  try {
    const s = fs.statSync(file, { throwIfNoEntry: false });
    return s === undefined ? 'absent' : `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}:${s.ctimeMs}`;
  } catch {
    return 'absent';
  }
}
