/**
 * Result redaction.
 * - redaction.mb_per_s: MB of tool output per second through `SecretRedactor.redactText` — 10 MB of log-like text
 *   holding 50 known secrets (~40 characters each, one occurrence every ~100 KB), the redacted text read once;
 *   baseline: one `indexOf` pass over the same text for a string that is not there (the floor of any scan), same run.
 *   Both in CPU time of the process (median of 21).
 */
import { randomBytes } from 'node:crypto';
import { SecretRedactor } from '../src/execution/redaction.js';
import { median, round, type Benchmark } from './lib.js';

const MB = 1024 * 1024;

function corpus(secrets: readonly string[]): string {
  const lines = [
    'GET /api/v1/items?page=3 200 12ms user=42 region=eu-west-1\n',
    'at Object.<anonymous> (/srv/app/node_modules/pkg/lib/index.js:118:22)\n',
    'compiling src/components/table/row.tsx ... done in 0.8s\n',
  ];
  const parts: string[] = [];
  let size = 0;
  let n = 0;
  while (size < 10 * MB) {
    const line = lines[n % lines.length]!;
    parts.push(line);
    size += line.length;
    if (++n % 1_000 === 0) {
      const s = `token=${secrets[(n / 1_000) % secrets.length]}\n`;
      parts.push(s);
      size += s.length;
    }
  }
  return parts.join('');
}

export const benchmarks: Benchmark[] = [
  {
    names: ['redaction.mb_per_s'],
    group: 'redaction',
    async run() {
      const secrets = Array.from({ length: 50 }, (_, i) => `sk-${randomBytes(18).toString('base64url')}-${i}`);
      const redactor = new SecretRedactor(secrets.map((value, i) => ({ label: `SECRET_${i}`, value })));
      const text = corpus(secrets);
      const mb = text.length / MB;
      const times: number[] = [];
      const floor: number[] = [];
      let check = '';
      // CPU time of this process, not wall time: on a shared machine the wall clock mostly measures the neighbours.
      const cpuMs = (fn: () => void) => {
        const start = process.cpuUsage();
        fn();
        const d = process.cpuUsage(start);
        return (d.user + d.system) / 1000;
      };
      for (let i = 0; i < 21; i++) {
        times.push(
          cpuMs(() => {
            check = redactor.redactText(text);
            // The result is a rope until read; reading it once (as the pipeline does) is part of the cost.
            check.indexOf('\u0000');
          }),
        );
        floor.push(cpuMs(() => text.indexOf('not-in-the-text-at-all-0123456789')));
      }
      if (check.includes(secrets[0]!) || !check.includes('[REDACTED:SECRET_1]')) throw new Error('redaction benchmark: output not redacted');
      return [
        { name: 'redaction.mb_per_s', value: round(mb / (median(times) / 1000), 1), unit: 'MB/s', baseline: round(mb / (median(floor) / 1000), 1) },
      ];
    },
  },
];
