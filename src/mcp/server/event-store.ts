/**
 * The HTTP server's memory of what it sent on each SSE stream, so a client whose stream broke can reconnect with
 * `Last-Event-ID` and get the rest (the spec's resumability; with it the SDK's transport sends the priming event and
 * `retry`). One store per MCP session, bounded: a client that never reconnects cannot make the server hold every answer
 * it was sent — past the bounds the oldest events go, and a reconnect that asks for one of them gets nothing replayed.
 */
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long a client waits before reconnecting a closed stream (the `retry` of the priming event). */
export const SSE_RETRY_MS = 1_000;

interface Stored {
  readonly id: string;
  readonly streamId: string;
  readonly message: JSONRPCMessage;
  readonly size: number;
}

export class BoundedEventStore implements EventStore {
  private readonly events: Stored[] = [];
  private bytes = 0;
  private seq = 0;

  constructor(
    private readonly maxEvents = 1_000,
    private readonly maxBytes = 8 * 1024 * 1024,
  ) {}

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${(++this.seq).toString(36)}`;
    const size = JSON.stringify(message).length;
    this.events.push({ id, streamId, message, size });
    this.bytes += size;
    while (this.events.length > this.maxEvents || (this.bytes > this.maxBytes && this.events.length > 1)) this.bytes -= this.events.shift()!.size;
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(this.events.find((e) => e.id === eventId)?.streamId);
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return '';
    const { streamId } = this.events[at]!;
    // A copy: sending may store new events.
    for (const e of this.events.slice(at + 1)) {
      // The priming event's empty message is a marker, not something to send again.
      if (e.streamId === streamId && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return streamId;
  }
}
