/** What the model reads about ScheduleWakeup (alias Sleep). */
import type { ToolSettings } from '../../tool/tool-use-context.js';

export const SCHEDULE_WAKEUP_TOOL_NAME = 'ScheduleWakeup';

export const DEFAULT_MIN_DELAY_SECONDS = 60;
export const DEFAULT_MAX_DELAY_SECONDS = 3600;

export function scheduleWakeupPrompt(min: number, max: number): string {
  return `Pauses this session for a while without running a shell: the call returns when the time is up, or earlier as soon as something needs your attention — a background task or monitor reports, a scheduled task fires, or the user sends a message. Use it instead of \`sleep\` in Bash when you have nothing to do until something happens.

- delaySeconds: how long to wait at most; kept between ${min} and ${max} seconds (the result says when it was adjusted).
- reason: one short, specific sentence saying why this delay; it is shown to the user.
- prompt: what to go on with when you wake up (repeated back to you in the result).
- noop: true when this check found nothing new to report, false when something changed.
- stop: true ends any wait still pending in this session and returns at once; the other fields are then ignored.

Whatever arrived while you waited is given to you with the result. Background tasks and Monitor already notify you when they have news: do not wait just to poll them.`;
}

/** The tool's description under the session's settings (its bounds). */
export function scheduleWakeupToolPrompt(settings: ToolSettings | undefined): string {
  const s = settings?.scheduleWakeup;
  return scheduleWakeupPrompt(s?.minDelaySeconds ?? DEFAULT_MIN_DELAY_SECONDS, s?.maxDelaySeconds ?? DEFAULT_MAX_DELAY_SECONDS);
}
