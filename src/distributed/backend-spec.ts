/**
 * `--backend SPEC` for the CLI: `local` (the default) or `restate=URL` (the Restate ingress; the admin API is the
 * same host on port 9070 unless TOOLGATE_RESTATE_ADMIN names it; `TOOLGATE_RESTATE_POOL` picks a worker pool).
 */
import type { ToolCallBackend } from '../execution/backend.js';

export interface BackendFromSpec {
  readonly backend?: ToolCallBackend;
  close(): Promise<void>;
}

export function parseBackendSpec(spec: string): { kind: 'local' } | { kind: 'restate'; url: string } {
  if (spec === 'local') return { kind: 'local' };
  const m = /^restate=(.+)$/.exec(spec);
  if (m) {
    let url: URL;
    try {
      url = new URL(m[1]!);
    } catch {
      throw new Error(`--backend restate=URL: "${m[1]}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--backend restate=URL: "${m[1]}" is not an http(s) URL`);
    return { kind: 'restate', url: url.origin };
  }
  throw new Error(`unknown --backend "${spec}" (expected local or restate=URL)`);
}

export async function backendFromSpec(spec: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<BackendFromSpec> {
  const parsed = parseBackendSpec(spec ?? 'local');
  if (parsed.kind === 'local') return { close: async () => {} };
  // Loaded for a Restate backend only: its HTTP client and progress server bring node:http and node:https (~7 ms of
  // every `toolgate exec` start otherwise).
  const [{ createDurableToolCallBackend }, { startProgressReceiver }, { createRestateToolEngine }] = await Promise.all([
    import('./durable-tool-call-backend.js'),
    import('./progress-channel.js'),
    import('./restate-tool-engine.js'),
  ]);
  const progress = await startProgressReceiver({ host: env.TOOLGATE_PROGRESS_HOST ?? '127.0.0.1', advertisedHost: env.TOOLGATE_PROGRESS_ADVERTISE });
  const engine = createRestateToolEngine({ ingressUrl: parsed.url, adminUrl: env.TOOLGATE_RESTATE_ADMIN, pool: env.TOOLGATE_RESTATE_POOL });
  return {
    backend: createDurableToolCallBackend({ engine, progress }),
    close: async () => {
      await progress.close();
      await engine.close?.();
    },
  };
}
