/** The tools' name for the one executable-file test, which lives with the PATH lookup in tool/executable-path.ts. */
export { isExecutableFile } from '../../tool/executable-path.js';
