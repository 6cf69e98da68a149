/**
 * AskUserQuestion: multiple-choice questions for the person, answered through `ui.askQuestion` (the runtime's
 * question handler). Headless there is no one to ask: the result is an error that says so, at once — never a wait.
 */
import * as z from 'zod';
import { buildTool } from '../../tool/build-tool.js';
import type { ToolQuestionAnswer } from '../shared/questions.js';
import { ASK_USER_QUESTION_TOOL_NAME, askUserQuestionPrompt, NO_ONE_TO_ASK } from './prompt.js';

const optionSchema = z.strictObject({
  label: z.string().min(1).describe('The choice, in 1-5 words'),
  description: z.string().describe('What choosing it means'),
  preview: z.string().optional().describe('Optional content shown beside the option (code, a mock-up)'),
});

const questionSchema = z.strictObject({
  question: z.string().min(1).describe('The whole question, ending with a question mark'),
  header: z.string().min(1).max(12).describe('A tag of at most 12 characters ("Auth method")'),
  options: z.array(optionSchema).min(2).max(4),
  multiSelect: z.boolean().default(false).describe('Several options may be chosen'),
});

export const askUserQuestionInputSchema = z.strictObject({
  questions: z.array(questionSchema).min(1).max(4).describe('One to four questions'),
  answers: z.record(z.string(), z.string()).optional().describe('Filled in by the permission layer; leave it out'),
  annotations: z.record(z.string(), z.unknown()).optional(),
  metadata: z.strictObject({ source: z.string().optional() }).optional(),
});
export type AskUserQuestionInput = z.infer<typeof askUserQuestionInputSchema>;

export interface AskUserQuestionOutput {
  questions: AskUserQuestionInput['questions'];
  answers: Record<string, string>;
}

function formatAnswers(answers: Record<string, string>): string {
  const lines = Object.entries(answers).map(([q, a]) => `"${q}" = "${a}"`);
  return `The person answered: ${lines.join(', ')}. Go on with these answers in mind.`;
}

export const AskUserQuestionTool = buildTool<typeof askUserQuestionInputSchema, AskUserQuestionOutput>({
  name: ASK_USER_QUESTION_TOOL_NAME,
  searchHint: 'ask the person multiple choice clarify preference',
  inputSchema: askUserQuestionInputSchema,
  maxResultSizeChars: 100_000,
  prompt: async () => askUserQuestionPrompt(),
  isReadOnly: () => true,
  isConcurrencySafe: () => false,
  // Asking is the point: no permission prompt in front of the question itself.
  checkPermissions: async (input) => ({ behavior: 'allow', updatedInput: input }),
  async validateInput(input) {
    const seen = new Set<string>();
    for (const q of input.questions) {
      if (seen.has(q.question)) return { result: false, message: `The question "${q.question}" is asked twice; ask each once.`, errorCode: 1 };
      seen.add(q.question);
      const labels = new Set(q.options.map((o) => o.label));
      if (labels.size !== q.options.length) return { result: false, message: `The options of "${q.question}" must have different labels.`, errorCode: 2 };
    }
    return { result: true };
  },
  async call(input, context) {
    const ask = context.ui?.askQuestion;
    if (!ask) throw new Error(NO_ONE_TO_ASK);
    const answer: ToolQuestionAnswer = await ask({
      kind: 'choice',
      questions: input.questions.map((q) => ({
        question: q.question,
        header: q.header,
        options: q.options.map((o) => ({ label: o.label, description: o.description })),
        multiSelect: q.multiSelect,
      })),
      signal: context.abortController.signal,
    });
    if (answer.action !== 'accept') {
      const why = answer.message ? `: ${answer.message}` : '';
      throw new Error(`The person declined to answer${why}. Do not ask again; go on with your best judgement or stop and explain.`);
    }
    return { data: { questions: input.questions, answers: { ...(answer.answers ?? {}) } } };
  },
  mapToolResultToToolResultBlockParam: (data, toolUseId) => ({ type: 'tool_result', tool_use_id: toolUseId, content: formatAnswers(data.answers) }),
  renderToolUseMessage: (input) => input.questions?.map((q) => q?.question).join(' / ') ?? '',
  renderToolResultMessage: (data) => data.questions.map((q) => `${q.question} → ${data.answers[q.question] ?? '(no answer)'}`).join('\n'),
  loadViews: () => import('./render.js').then((m) => m.askUserQuestionViews),
});
