/**
 * What one call's permission decision resolved its paths to. Between the decision (pipeline step 8) and `call()`
 * (step 10) another process can flip a symlink; a decision holds only for the object it judged. The pipeline gives a
 * path tool's call a fresh record on its context, the engine notes each path it judged with the real path it
 * resolved it to then (`src/permissions/paths.ts`), and the tool's `call()` requires that what it opens is that object
 * — or one the engine allows on its own — and refuses otherwise (`src/tools/shared/opened-file.ts`).
 */
export class PathChecks {
  /** Path as judged (absolute, normalised) → the real path it resolved to; null when it resolved to two. */
  #real: Map<string, string | null> | undefined;
  /** Role → the absolute path of the program the decision judged for it. */
  #programs: Map<string, string> | undefined;

  /** Notes that `given` was judged as `realPath`. Judged twice with two answers, neither stands. */
  note(given: string, realPath: string): void {
    const map = (this.#real ??= new Map());
    const known = map.get(given);
    if (known === undefined) map.set(given, realPath);
    else if (known !== realPath) map.set(given, null);
  }

  /** The real path the decision judged `given` as; null when it saw two; undefined when it did not judge `given`. */
  realPathOf(given: string): string | null | undefined {
    return this.#real?.get(given);
  }

  /** The record as plain data, for a call that crosses to a remote worker (`RemoteToolCall.pathChecks`). */
  toJSON(): [string, string | null][] {
    return [...(this.#real ?? new Map<string, string | null>()).entries()];
  }

  /** A record made from `toJSON()`'s data (a worker's copy of what the coordinator's decision judged). */
  static fromJSON(entries: readonly (readonly [string, string | null])[]): PathChecks {
    const checks = new PathChecks();
    if (entries.length > 0) checks.#real = new Map(entries.map(([given, real]) => [given, real]));
    return checks;
  }

  /** Notes the program the decision judged for `role` (a language server): call() runs exactly that one. */
  noteProgram(role: string, absPath: string): void {
    (this.#programs ??= new Map()).set(role, absPath);
  }

  /** The program the decision judged for `role`; undefined when it judged none. */
  programOf(role: string): string | undefined {
    return this.#programs?.get(role);
  }

  /** Whether the engine judged any path of this call (a gate that is not the engine judges none). */
  get judgedAny(): boolean {
    return this.#real !== undefined;
  }
}
