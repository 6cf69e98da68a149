/**
 * Keyboard input for the session's components. Ink's `useInput` subscribes in a passive effect, and React may run
 * that effect only when the next update comes — so a field that just appeared misses the keys typed first. Here one
 * `useInput` at the root stays subscribed for the app's life and hands each key to the components' handlers, which
 * register in layout effects (run as the commit happens, never later).
 */
import { useInput, type Key } from 'ink';
import { createContext, useCallback, useContext, useLayoutEffect, useRef, type ReactNode } from 'react';

type Handler = (input: string, key: Key) => void;
interface Entry {
  handler: Handler;
  active: boolean;
}

const KeysContext = createContext<Set<Entry> | null>(null);

export function KeysProvider({ children }: { children: ReactNode }): ReactNode {
  const entries = useRef(new Set<Entry>()).current;
  const dispatch = useCallback(
    (input: string, key: Key) => {
      for (const entry of [...entries]) if (entry.active && entries.has(entry)) entry.handler(input, key);
    },
    [entries],
  );
  useInput(dispatch);
  return <KeysContext.Provider value={entries}>{children}</KeysContext.Provider>;
}

export function useKeys(handler: Handler, options: { isActive?: boolean } = {}): void {
  const entries = useContext(KeysContext);
  const entry = useRef<Entry>({ handler, active: options.isActive !== false }).current;
  entry.handler = handler;
  useLayoutEffect(() => {
    entry.active = options.isActive !== false;
  });
  useLayoutEffect(() => {
    if (!entries) return;
    entries.add(entry);
    return () => {
      entries.delete(entry);
    };
  }, [entries, entry]);
}
