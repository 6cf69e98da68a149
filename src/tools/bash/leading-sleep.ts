/**
 * A command that begins by sleeping (`sleep 30`, `sleep 30 && curl …`) blocks the turn for nothing: the seeds have
 * Bash refuse a standalone sleep when Monitor is there to wait on a condition. This is a nudge, not a defence — it
 * fails open on anything it does not recognise at a glance (quotes, variables, a sleep later in the command, one
 * sent to the background with `&` or piped on with `|`), since a missed sleep only costs time.
 */

/**
 * Sleeps shorter than this pass: a brief pause between two steps is ordinary. At two seconds or more the command is
 * waiting for something, which Monitor (for a condition) or ScheduleWakeup (for time) does without holding a shell.
 */
export const LEADING_SLEEP_LIMIT_SECONDS = 2;

const UNIT_SECONDS: Readonly<Record<string, number>> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

// `sleep N[smhd]` as the first simple command, then the end, a newline, `;`, `&&` or `||` — never `&` or `|` alone.
const LEADING = /^\s*sleep\s+(\d+(?:\.\d*)?|\.\d+)([smhd]?)\s*(?:$|(?:\n|;|&&|\|\|)([\s\S]*)$)/;

export interface LeadingSleep {
  readonly seconds: number;
  /** What the command does after the sleep (empty for a sleep on its own). */
  readonly rest: string;
}

/** The sleep a command starts with, when it is long enough to refuse; otherwise undefined. */
export function leadingSleep(command: string): LeadingSleep | undefined {
  const match = LEADING.exec(command);
  if (!match) return undefined;
  const seconds = Number.parseFloat(match[1]!) * UNIT_SECONDS[match[2]!]!;
  if (!(seconds >= LEADING_SLEEP_LIMIT_SECONDS)) return undefined;
  return { seconds, rest: (match[3] ?? '').trim() };
}

/** The refusal: what was refused and what to use instead (the tools named are those in the session's pool). */
export function leadingSleepMessage(sleep: LeadingSleep, tools: { readonly monitor?: string; readonly wakeup?: string }): string {
  const what = sleep.rest === '' ? `a standalone sleep of ${sleep.seconds} s` : `a sleep of ${sleep.seconds} s before: ${sleep.rest}`;
  const ways = [
    tools.monitor !== undefined
      ? `to wait until something is true, call ${tools.monitor} with a polling loop such as \`until <check>; do sleep 2; done\` — you are told when it ends`
      : undefined,
    tools.wakeup !== undefined ? `to pause for a while without holding a shell, call ${tools.wakeup}` : undefined,
    'to wait for a command you started, run it with run_in_background: true and you are notified when it ends',
  ].filter((way) => way !== undefined);
  return `Refused ${what}: a leading sleep of ${LEADING_SLEEP_LIMIT_SECONDS} s or more holds the turn. Instead, ${ways.join('; ')}. Do not split the wait into shorter sleeps.`;
}
