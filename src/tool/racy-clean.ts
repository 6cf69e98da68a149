/**
 * Git's "racily clean" rule, for every cache that takes a file (or folder) as unchanged while its stat data is: a file
 * whose modification or change time falls within the timestamps' granularity before it was read may change again
 * with the same stat data, so its stamp proves nothing about what was read. Kernels stamp files with a clock that
 * ticks by a jiffy (up to 10 ms); some filesystems keep whole seconds (up to 2 s): a time with no fraction of a second
 * is taken to come from one of those. The change time too: a program sets the modification time back at will
 * (`touch -d`), and a file changed again within the tick of the reading would keep a stamp whose change time alone
 * was recent.
 */
export function racilyClean(stat: { readonly mtimeMs: number; readonly ctimeMs: number }, at: number): boolean {
  const latest = Math.max(stat.mtimeMs, stat.ctimeMs);
  return latest >= at - (latest % 1000 === 0 ? 2000 : 20);
}
