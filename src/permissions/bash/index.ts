export type { Redirect, SimpleCommand, BashAnalysis, BashPermissionDeps, ReadOnlyOptions } from './types.js';
export { analyzeBashCommand, needsBashParser } from './analyze.js';
export { isReadOnlyCommand } from './read-only.js';
export { matchBashRuleContent } from './rule-match.js';
export { checkBashPermission } from './check-permission.js';
export { loadBashParser, isBashParserLoaded } from './parser.js';
export { destructiveSubcommand } from './destructive.js';
