/** TodoWrite in a terminal: the list as a checklist — done struck through, the one in progress bold. */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import type { ToolViews } from '../../tool/tool.js';
import type { TodoItem, TodoWriteOutput } from './index.js';

export function Checklist({ todos }: { todos: readonly TodoItem[] }): ReactNode {
  if (todos.length === 0) return <Text dimColor>(empty list)</Text>;
  return (
    <Box flexDirection="column">
      {todos.map((todo, i) =>
        todo.status === 'completed' ? (
          <Text key={i} color="green">
            ☒ <Text strikethrough>{todo.content}</Text>
          </Text>
        ) : todo.status === 'in_progress' ? (
          <Text key={i} bold>
            ☐ {todo.activeForm}
          </Text>
        ) : (
          <Text key={i}>☐ {todo.content}</Text>
        ),
      )}
    </Box>
  );
}

export const todoWriteViews: ToolViews<{ todos: TodoItem[] }, TodoWriteOutput> = {
  renderToolUseMessage: () => null,
  renderToolResultMessage: (output) => <Checklist todos={output.newTodos} />,
};
