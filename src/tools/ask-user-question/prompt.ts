export const ASK_USER_QUESTION_TOOL_NAME = 'AskUserQuestion';

export const NO_ONE_TO_ASK =
  'No one can answer questions in this session (it runs without a person at the keyboard). Decide with your best ' +
  'judgement, state the assumption you made, and go on.';

export function askUserQuestionPrompt(): string {
  return [
    'Asks the person one to four multiple-choice questions and waits for the answers. Use it when a decision is',
    'theirs to make (a preference, an ambiguous requirement, a choice between approaches), not for things you can',
    'find out yourself.',
    '',
    'Each question has a short `header` (at most 12 characters, shown as a tag), 2 to 4 `options` (a `label` of a few',
    'words and a `description` of what choosing it means) and `multiSelect` when several options may be chosen.',
    'The person can always answer with their own text instead. Put the recommended option first and say so in its',
    'label.',
  ].join('\n');
}
