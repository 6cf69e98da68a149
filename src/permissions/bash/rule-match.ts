export function matchBashRuleContent(ruleContent: string, argv: readonly string[]): boolean {
  return ruleContent === argv.join(' ');
}
