/**
 * One HTTP exchange, with the connection pinned to addresses resolved (and vetted) beforehand: what was checked is
 * what is connected to, so a name cannot resolve to a public address for the check and an inward one for the fetch.
 * Redirects are not followed here (the tool decides hop by hop); bodies above the cap abort the transfer.
 */
// Types only at load: node:http and node:https (with tls, ~7 ms) come in with the first fetch, not with the tool.
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupAddress } from 'node:dns';

export interface FetchedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Uint8Array;
}

export class PageTooLargeError extends Error {
  override readonly name = 'PageTooLargeError';
}

export interface FetchOnceOptions {
  readonly addresses: readonly LookupAddress[];
  readonly signal: AbortSignal;
  readonly maxBytes: number;
  readonly headers: Record<string, string>;
}

export async function fetchOnce(url: URL, options: FetchOnceOptions): Promise<FetchedResponse> {
  const lib = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  const pinned = options.addresses[0]!;
  return new Promise<FetchedResponse>((resolve, reject) => {
    const req = lib.request(
      url,
      {
        method: 'GET',
        headers: options.headers,
        signal: options.signal,
        // The vetted address, whatever the resolver would say now.
        lookup: ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
          if (opts?.all) cb(null, [pinned]);
          else cb(null, pinned.address, pinned.family);
        }) as never,
      },
      (res) => {
        const declared = Number(res.headers['content-length']);
        if (Number.isFinite(declared) && declared > options.maxBytes) {
          res.destroy();
          reject(new PageTooLargeError(`the page is ${declared} bytes, over the ${options.maxBytes}-byte limit`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            res.destroy();
            req.destroy();
            reject(new PageTooLargeError(`the page is larger than the ${options.maxBytes}-byte limit (the transfer was stopped)`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}
