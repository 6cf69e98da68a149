/**
 * The watchdog is told about groups in batches: a group that starts and ends within the batching moment (most
 * commands) costs no write at all; one that runs on is told once, and its end once. (What the watchdog does with them
 * is test/orphan-watchdog.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { orphanWatchdogEnabled, orphanWatchdogPid, orphanWatchdogWrites, unwatchGroup, watchGroup } from './orphan-watchdog.js';

/** Longer than the batching moment: its timer, set earlier and shorter, has fired by then. */
const pastTheBatch = () => new Promise((resolve) => setTimeout(resolve, 200));

describe.runIf(orphanWatchdogEnabled())('telling the orphan watchdog', () => {
  it('a group that ends at once is never written; one that runs on is written once, and its end once', async () => {
    // Pgids no process has (above the kernel's pid_max): the watchdog would find nothing to signal anyway.
    watchGroup(2 ** 30);
    expect(orphanWatchdogPid()).toBeDefined();
    await pastTheBatch();
    const before = orphanWatchdogWrites();

    watchGroup(2 ** 30 + 1);
    unwatchGroup(2 ** 30 + 1);
    await pastTheBatch();
    expect(orphanWatchdogWrites()).toBe(before);

    watchGroup(2 ** 30 + 2);
    watchGroup(2 ** 30 + 3);
    await pastTheBatch();
    expect(orphanWatchdogWrites()).toBe(before + 1);
    unwatchGroup(2 ** 30 + 2);
    unwatchGroup(2 ** 30 + 3);
    unwatchGroup(2 ** 30);
    await pastTheBatch();
    expect(orphanWatchdogWrites()).toBe(before + 2);
  });
});
