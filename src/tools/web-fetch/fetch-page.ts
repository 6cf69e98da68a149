/**
 * One HTTP exchange, with the connection pinned to addresses resolved (and vetted) beforehand: what was checked is
 * what is connected to, so a name cannot resolve to a public address for the check and an inward one for the fetch.
 * Redirects are not followed here (the tool decides hop by hop); bodies above the cap abort the transfer.
 */
import http from 'node:http';
import https from 'node:https';
import type { LookupAddress } from 'node:dns';

export interface FetchedResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: http.IncomingHttpHeaders;
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

export function fetchOnce(url: URL, options: FetchOnceOptions): Promise<FetchedResponse> {
  const lib = url.protocol === 'https:' ? https : http;
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
