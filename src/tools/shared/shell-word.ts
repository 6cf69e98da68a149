/** Single-quotes a string as one bash word (the one quoting of the tools: Bash's scripts, suggestions in messages). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
