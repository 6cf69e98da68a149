/**
 * `options.sessionStore` / `options.sessionStoreFlush`: the Agent SDK's transcript mirror. Every entry of the
 * session's transcript goes to the program's store once it is written to the state folder, which stays the transcript
 * a resume reads (`load()` is not needed: the local copy is always there). `'batched'` (the default) sends the entries
 * of a user turn before its `result` is yielded; `'eager'` sends each entry on its own as it comes, in order. An
 * append that fails is tried three times in all, then the batch is dropped and said on `stderr`: the session goes on.
 */
export interface SessionKey {
  projectKey: string;
  sessionId: string;
  subpath?: string;
}

/** One transcript line, opaque to the store: a `type`, most a `uuid` and a `timestamp`. */
export type SessionStoreEntry = { type: string; uuid?: string; timestamp?: string; [k: string]: unknown };

export interface SessionStore {
  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void>;
  load(key: SessionKey): Promise<SessionStoreEntry[] | null>;
  listSessions?(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>>;
  delete?(key: SessionKey): Promise<void>;
  listSubkeys?(key: { projectKey: string; sessionId: string }): Promise<string[]>;
}

export type SessionStoreFlush = 'batched' | 'eager';

const ATTEMPTS = 3;

/** Claude Code's name of a project's folder: the path with every character but letters and digits made `-`. */
export function projectKeyOf(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

export class StoreMirror {
  #pending: SessionStoreEntry[] = [];
  #sending: Promise<void> = Promise.resolve();
  #sessionId: string | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly flushMode: SessionStoreFlush,
    private readonly projectKey: string,
    private readonly warn: (text: string) => void,
  ) {}

  /** An entry of the transcript, as written (toolgate's form, plus the `uuid` and `timestamp` a store keys on). */
  add(entry: Readonly<Record<string, unknown>> & { readonly type: string }, sessionId: string): void {
    if (sessionId !== this.#sessionId) {
      this.#sendPending();
      this.#sessionId = sessionId;
    }
    // A message's first yielded part names it (a prompt has none: appended without dedup, as the SDK allows).
    const uuids = entry.uuids;
    const uuid = Array.isArray(uuids) && typeof uuids[0] === 'string' ? uuids[0] : undefined;
    const at = typeof entry.at === 'string' ? entry.at : undefined;
    this.#pending.push({ ...structuredClone(entry), ...(uuid ? { uuid } : {}), ...(at ? { timestamp: at } : {}) });
    if (this.flushMode === 'eager') this.#sendPending();
  }

  /** Everything added so far handed to the store (or dropped after its retries). */
  flush(): Promise<void> {
    this.#sendPending();
    return this.#sending;
  }

  #sendPending(): void {
    if (this.#pending.length === 0 || this.#sessionId === undefined) return;
    const batch = this.#pending;
    const key: SessionKey = { projectKey: this.projectKey, sessionId: this.#sessionId };
    this.#pending = [];
    this.#sending = this.#sending.then(() => this.#append(key, batch));
  }

  async #append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    let last: unknown;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      try {
        await this.store.append(key, entries);
        return;
      } catch (error) {
        last = error;
      }
    }
    this.warn(`warning: sessionStore.append failed ${ATTEMPTS} times; ${entries.length} transcript entries were not mirrored (the state folder has them): ${last instanceof Error ? last.message : String(last)}`);
  }
}

/** The option checked: a store with `append` and `load`, and not with `persistSession: false` (nothing to mirror). */
export function checkSessionStore(store: unknown, flush: unknown, persistSession: boolean | undefined): { store: SessionStore; flush: SessionStoreFlush } {
  const s = store as Partial<SessionStore> | null;
  if (s === null || typeof s !== 'object' || typeof s.append !== 'function' || typeof s.load !== 'function') throw new TypeError('options.sessionStore must have append(key, entries) and load(key)');
  if (persistSession === false) throw new TypeError('options.sessionStore cannot be used with persistSession: false (the store mirrors the transcript written locally)');
  if (flush !== undefined && flush !== 'batched' && flush !== 'eager') throw new TypeError('options.sessionStoreFlush must be "batched" or "eager"');
  return { store: s as SessionStore, flush: (flush as SessionStoreFlush | undefined) ?? 'batched' };
}
