/**
 * Questions to the person: AskUserQuestion's multiple choice as a picker (one question at a time, "Other" to type an
 * answer, Space to tick in multi-select), and ExitPlanMode's plan for approval (Markdown, then approve or say why not).
 */
import { Box, Text } from 'ink';
import { useState, type ReactNode } from 'react';
import type { QuestionAnswer, QuestionRequest } from '../agent/types.js';
import { Markdown } from './markdown.js';
import { Select } from './select.js';
import { TextField } from './text-field.js';

export function QuestionDialog({ request, onAnswer }: { request: QuestionRequest; onAnswer: (answer: QuestionAnswer) => void }): ReactNode {
  if (request.kind === 'plan-approval') return <PlanApproval plan={request.message ?? ''} onAnswer={onAnswer} />;
  if (request.kind === 'choice' && request.questions && request.questions.length > 0) return <Picker request={request} onAnswer={onAnswer} />;
  return <Elicitation request={request} onAnswer={onAnswer} />;
}

function PlanApproval({ plan, onAnswer }: { plan: string; onAnswer: (answer: QuestionAnswer) => void }): ReactNode {
  const [typing, setTyping] = useState(false);
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} marginTop={1}>
      <Text bold color="cyan">
        The plan — start the work?
      </Text>
      <Markdown text={plan} />
      <Box marginTop={1} flexDirection="column">
        <Select
          isActive={!typing}
          choices={[{ label: 'Yes, leave plan mode and start' }, { label: 'No, keep planning (say what to change)' }]}
          onPick={(i) => (i === 0 ? onAnswer({ action: 'accept' }) : setTyping(true))}
          onCancel={() => onAnswer({ action: 'cancel' })}
        />
        {typing ? (
          <TextField placeholder="what to change" onSubmit={(text) => onAnswer({ action: 'decline', message: text.trim() || undefined })} onCancel={() => setTyping(false)} />
        ) : null}
      </Box>
    </Box>
  );
}

function Picker({ request, onAnswer }: { request: QuestionRequest; onAnswer: (answer: QuestionAnswer) => void }): ReactNode {
  const questions = request.questions!;
  const [index, setIndex] = useState(0);
  const [answers, setAnswers] = useState<Record<string, string>>({});
  const [ticked, setTicked] = useState<ReadonlySet<number>>(new Set());
  const [typing, setTyping] = useState(false);
  const q = questions[index]!;
  const other = q.options.length;
  const answer = (text: string) => {
    const next = { ...answers, [q.question]: text };
    setTicked(new Set());
    setTyping(false);
    if (index + 1 < questions.length) {
      setAnswers(next);
      setIndex(index + 1);
    } else onAnswer({ action: 'accept', answers: next });
  };
  const choices = [...q.options.map((o) => ({ label: o.label, hint: o.description })), { label: 'Other (type an answer)' }];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} marginTop={1}>
      <Text dimColor>
        {q.header ? `${q.header} · ` : ''}question {index + 1} of {questions.length}
      </Text>
      <Text bold>{q.question}</Text>
      <Select
        key={index}
        isActive={!typing}
        choices={choices}
        marked={q.multiSelect ? ticked : undefined}
        onToggle={
          q.multiSelect
            ? (i) =>
                i === other
                  ? setTyping(true)
                  : setTicked((prev) => {
                      const s = new Set(prev);
                      if (s.has(i)) s.delete(i);
                      else s.add(i);
                      return s;
                    })
            : undefined
        }
        onPick={(i) => {
          if (i === other) return setTyping(true);
          if (q.multiSelect) {
            const picked = [...(ticked.size > 0 ? ticked : new Set([i]))].sort().map((k) => q.options[k]!.label);
            answer(picked.join(', '));
          } else answer(q.options[i]!.label);
        }}
        onCancel={() => onAnswer({ action: 'cancel' })}
      />
      {typing ? <TextField placeholder="your answer" onSubmit={(text) => answer(text.trim())} onCancel={() => setTyping(false)} /> : null}
      <Text dimColor>↑/↓ choose · {q.multiSelect ? 'Space tick · ' : ''}Enter confirm · Esc cancel</Text>
    </Box>
  );
}

function Elicitation({ request, onAnswer }: { request: QuestionRequest; onAnswer: (answer: QuestionAnswer) => void }): ReactNode {
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1} marginTop={1}>
      <Text>{request.message ?? 'A question'}</Text>
      {/* URL mode: the page is shown for the person to open themselves; toolgate never opens a server's URL. */}
      {request.url ? <Text color="cyan">Open this page yourself to continue: {request.url}</Text> : null}
      <Select choices={[{ label: 'Accept' }, { label: 'Decline' }]} onPick={(i) => onAnswer({ action: i === 0 ? 'accept' : 'decline' })} onCancel={() => onAnswer({ action: 'cancel' })} />
    </Box>
  );
}
