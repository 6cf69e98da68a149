/**
 * What a runtime does once at its start about what earlier or other processes left behind, cheaply and without ever
 * failing the start: temp files of writers that died mid-write, and the orphan watchdog's view of hook processes.
 */
import { observeHookProcessGroups } from '../hooks/run-hook-process.js';
import type { ToolPermissionContext } from '../tool/permission-types.js';
import { unwatchGroup, watchGroup } from '../tools/bash/orphan-watchdog.js';
import { cleanStaleTempFiles } from '../tools/shared/atomic-write.js';

export function startSessionHousekeeping(cwd: string, permissionContext: ToolPermissionContext): void {
  // `.NAME.<pid>.<hex>.tmp` of dead writers in the working directories (not below them: the next write into a folder
  // cleans that folder); bounded, so a folder of a million names does not hold up the start.
  const extra = [...permissionContext.additionalWorkingDirectories.values()].map((d) => d.path);
  cleanStaleTempFiles([cwd, ...extra], { maxEntries: 10_000 });
  // Hook commands' process groups end with toolgate too, even when it dies by SIGKILL (the hooks layer sits below the
  // watchdog, so it is wired here).
  observeHookProcessGroups({ started: watchGroup, ended: unwatchGroup });
}
