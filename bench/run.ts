/**
 * `npm run bench [-- --filter NAME]`: runs every `bench/*.bench.ts` and prints one JSON object per line:
 * {"name", "value", "unit", "baseline"?, "ratio"?}. Not a test: nothing here passes or fails.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { round, type Benchmark } from './lib.js';

function parseFilter(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--filter');
  if (i !== -1) return argv[i + 1];
  return argv.find((a) => a.startsWith('--filter='))?.slice('--filter='.length);
}

const dir = path.dirname(fileURLToPath(import.meta.url));
const filter = parseFilter(process.argv.slice(2));
const files = readdirSync(dir).filter((f) => f.endsWith('.bench.ts')).sort();

let ran = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { benchmarks?: Benchmark[] };
  for (const bench of mod.benchmarks ?? []) {
    if (filter && !bench.group.includes(filter) && !bench.names.some((n) => n.includes(filter))) continue;
    ran++;
    try {
      for (const fig of await bench.run()) {
        if (filter && !fig.name.includes(filter) && !bench.group.includes(filter)) continue;
        const line: Record<string, unknown> = { name: fig.name, value: round(fig.value), unit: fig.unit };
        if (fig.baseline !== undefined) {
          line.baseline = round(fig.baseline);
          line.ratio = fig.baseline === 0 ? null : round(fig.value / fig.baseline);
        }
        process.stdout.write(`${JSON.stringify(line)}\n`);
      }
    } catch (error) {
      process.stderr.write(`bench ${bench.group} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
if (ran === 0) process.stderr.write(`no benchmark matches ${filter ?? '(none found)'}\n`);
