/**
 * AskUserQuestion in a terminal: the questions' tags on the call line (the picker shows the questions themselves);
 * once answered, each question with the answer chosen.
 */
import { Box, Text } from 'ink';
import type { ToolViews } from '../../tool/tool.js';
import type { AskUserQuestionInput, AskUserQuestionOutput } from './index.js';

export const askUserQuestionViews: ToolViews<AskUserQuestionInput, AskUserQuestionOutput> = {
  renderToolUseMessage(input) {
    const headers = (input.questions ?? []).map((q) => q?.header).filter((h): h is string => typeof h === 'string' && h !== '');
    return <Text>{headers.join(', ')}</Text>;
  },
  renderToolResultMessage(output) {
    return (
      <Box flexDirection="column">
        {output.questions.map((q) => {
          const answer = output.answers[q.question];
          return (
            <Text key={q.question}>
              <Text dimColor>{q.question}</Text> →{' '}
              {answer !== undefined && answer !== '' ? <Text bold>{answer}</Text> : <Text color="yellow">(no answer)</Text>}
            </Text>
          );
        })}
      </Box>
    );
  },
};
