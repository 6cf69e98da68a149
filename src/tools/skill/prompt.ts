export const SKILL_TOOL_NAME = 'Skill';

/** One entry of the listing the model reads. */
export interface SkillListing {
  readonly name: string;
  readonly description: string;
  readonly argumentHint?: string;
  readonly kind: 'skill' | 'command';
}

/** Each entry's text is cut here (Claude Code's cap on description + when_to_use). */
export const SKILL_DESCRIPTION_MAX_CHARS = 1_536;
/** The whole listing's budget (about 1% of a 200k-token context); past it, descriptions are shortened evenly. */
export const SKILL_LISTING_BUDGET_CHARS = 8_000;

export function skillPrompt(listing: readonly SkillListing[]): string {
  return [
    'Runs a skill or a custom slash command: its instructions are loaded into the conversation, and you then follow',
    'them. Skills carry knowledge and procedures for specific tasks; when a request matches one listed below, call',
    'this tool first, before doing the work another way.',
    '',
    'Call it with the name alone (`skill: "pdf"`, `skill: "frontend:test"`, no leading slash) and put what a person',
    'would type after `/name` in `args`. A skill that is already loaded in this conversation (its text is above, or',
    'the person typed `/name`) needs no second call. A skill names a base directory: the files it mentions are',
    'relative to it; read them with Read only when its instructions call for them. While a skill runs, its',
    '`allowed-tools` may narrow which of your calls run without asking.',
    '',
    listing.length > 0 ? 'Available skills:' : 'No skills are available right now.',
    ...listingLines(listing),
  ].join('\n');
}

function listingLines(listing: readonly SkillListing[]): string[] {
  const head = (s: SkillListing) => `- ${s.name}${s.argumentHint ? ` ${s.argumentHint}` : ''}`;
  const fixed = listing.reduce((n, s) => n + head(s).length + 3, 0);
  // Every name stays; descriptions share what the budget leaves.
  const each = Math.min(SKILL_DESCRIPTION_MAX_CHARS, Math.max(0, Math.floor((SKILL_LISTING_BUDGET_CHARS - fixed) / Math.max(1, listing.length))));
  return listing.map((s) => {
    const text = oneLine(s.description);
    const cut = text.length > each ? `${text.slice(0, Math.max(0, each - 1))}…` : text;
    return cut && each > 0 ? `${head(s)}: ${cut}` : head(s);
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function skillResultText(name: string): string {
  return `Launching skill: ${name}`;
}
