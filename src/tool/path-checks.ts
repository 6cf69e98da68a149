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

  /** Whether the engine judged any path of this call (a gate that is not the engine judges none). */
  get judgedAny(): boolean {
    return this.#real !== undefined;
  }
}
