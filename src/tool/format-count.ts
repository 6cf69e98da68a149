/**
 * An integer with thousands separators, as `n.toLocaleString('en-US')` writes it. Not through Intl: the first
 * toLocaleString call in a process sets up ICU's number formatting (10–20 ms), which tool prompts and result notes
 * would otherwise pay at start-up (`toolgate mcp serve` before its first `tools/list`).
 */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${digits}` : digits;
}
