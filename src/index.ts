export * from './tool/index.js';
export * from './registry/index.js';
export { filterToolsByDenyRules, getDenyRuleForTool, parseMcpToolName } from './permissions/tool-rule-match.js';
