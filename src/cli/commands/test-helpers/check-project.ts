/**
 * The project the `check` engine's tests decide against: a temporary folder with a project (`src/a.ts`, a `.env`
 * holding a secret) and a home of its own, real paths throughout (macOS's /tmp is a link).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface CheckProject {
  readonly tmp: string;
  readonly proj: string;
  readonly home: string;
}

/** Made by the caller's `beforeAll`; `fs.rmSync(tmp, { recursive: true, force: true })` in its `afterAll`. */
export function makeCheckProject(prefix: string): CheckProject {
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const proj = path.join(tmp, 'proj');
  const home = path.join(tmp, 'home');
  fs.mkdirSync(path.join(proj, 'src'), { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(proj, '.env'), 'SECRET=1');
  fs.writeFileSync(path.join(proj, 'src', 'a.ts'), '');
  return { tmp, proj, home };
}
