/** Deterministic file contents for the crash test: version 0 is the original, every later version differs in full. */
export const CONTENT_BYTES = 48 * 1024;

export function versionContent(file: number, version: number): string {
  const head = `file ${file} version ${version}\n`;
  const unit = `${version}:${file};`;
  const body = unit.repeat(Math.ceil((CONTENT_BYTES - head.length - 4) / unit.length)).slice(0, CONTENT_BYTES - head.length - 4);
  return `${head}${body}\nEND`;
}

/** The version a content is, or null when it is no complete version of that file (torn, truncated, empty). */
export function parseVersion(file: number, content: string): number | null {
  const m = /^file (\d+) version (\d+)\n/.exec(content);
  if (!m || Number(m[1]) !== file) return null;
  const version = Number(m[2]);
  return versionContent(file, version) === content ? version : null;
}
