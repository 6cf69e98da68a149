import fs from 'node:fs';

/** Whether `file` is a regular file this process may execute (the test exec(3) makes of each PATH entry). */
export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
