/**
 * Child process for the crash test: overwrites FILES files in turn, WRITES times, through atomicWriteFile, and
 * reports each completed write on stdout. The test kills it with SIGKILL somewhere in the middle.
 */
import path from 'node:path';
import { atomicWriteFile } from '../atomic-write.js';
import { versionContent } from './atomic-write-content.js';

const [dir, filesArg, writesArg] = process.argv.slice(2);
const files = Number(filesArg);
const writes = Number(writesArg);
for (let i = 0; i < writes; i++) {
  const k = i % files;
  await atomicWriteFile(path.join(dir!, `f${k}.txt`), versionContent(k, i + 1));
  process.stdout.write(`${i + 1}\n`);
}
