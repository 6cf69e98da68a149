/**
 * One tool call as the transcript shows it: a status dot, the tool's name and its arguments (the tool's own view),
 * then under a hook the progress while it runs and its result view once done. The UI knows no tool: everything
 * tool-specific comes from the tool's views, or from its plain-text methods when it brings none.
 */
import { Box, Text } from 'ink';
import { useEffect, useState, type ReactNode } from 'react';
import type { AnyTool, ToolRenderOptions, ToolViews } from '../tool/tool.js';
import type { ToolItem } from './session-store.js';
import { outcomeText, safeText, toolTitle } from './plain-text.js';

export function ToolCall({ item, options }: { item: ToolItem; options: ToolRenderOptions }): ReactNode {
  const running = item.outcome === undefined;
  const elapsedMs = useElapsed(running, item.startedAt);
  const input = (item.outcome?.input ?? item.block.input ?? {}) as Record<string, unknown>;
  const inner = { ...options, columns: Math.max(20, options.columns - 5) };
  const dot = running ? <Text color="yellow">●</Text> : item.outcome!.isError ? <Text color="red">●</Text> : <Text color="green">●</Text>;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Box flexDirection="row">
        {dot}
        <Text> </Text>
        <Box flexShrink={1} width={inner.columns + 3}>
          <Text bold>{name(item.tool, input, item.block.name)}</Text>
          {args(item.tool, item.views, input, inner)}
        </Box>
      </Box>
      <Box flexDirection="row">
        <Text dimColor>{'  ⎿  '}</Text>
        <Box flexDirection="column" flexShrink={1} width={inner.columns}>
          {running ? progressView(item, inner, elapsedMs) : resultView(item, input, inner)}
        </Box>
      </Box>
    </Box>
  );
}

function useElapsed(running: boolean, startedAt: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return now - startedAt;
}

function name(tool: AnyTool | undefined, input: Record<string, unknown>, fallback: string): string {
  if (!tool) return fallback;
  return safeText(() => tool.userFacingName(input), tool.name);
}

function args(tool: AnyTool | undefined, views: ToolViews | undefined, input: Record<string, unknown>, options: ToolRenderOptions): ReactNode {
  const rich = guard(() => views?.renderToolUseMessage?.(input, options));
  if (rich === null) return null;
  if (rich !== undefined) {
    return (
      <Text>
        (<Text>{rich}</Text>)
      </Text>
    );
  }
  const text = toolTitle(tool, input).args;
  return text ? <Text>({text})</Text> : null;
}

function progressView(item: ToolItem, options: ToolRenderOptions, elapsedMs: number): ReactNode {
  if (item.waiting) return <Text color="yellow">Waiting for your approval…</Text>;
  const rich = guard(() => item.views?.renderToolUseProgressMessage?.(item.progress, { ...options, elapsedMs }));
  if (rich !== undefined && rich !== null) return rich;
  return <Text dimColor>Running… {Math.floor(elapsedMs / 1000)}s</Text>;
}

function resultView(item: ToolItem, input: Record<string, unknown>, options: ToolRenderOptions): ReactNode {
  const outcome = item.outcome!;
  // A call that ran has a typed output: the tool draws it, even when it failed (a command's exit code, say).
  if (outcome.stage === 'completed' && outcome.output !== undefined) {
    const rich = guard(() => item.views?.renderToolResultMessage?.(outcome.output, item.progress, { ...options, input }));
    if (rich !== undefined && rich !== null) return rich;
  }
  const text = outcomeText(outcome, options.verbose);
  if (outcome.stage === 'permission') return <Text color="yellow">{text}</Text>;
  return <Text color={outcome.isError ? 'red' : undefined}>{text}</Text>;
}

/** A view that throws must not take the session down: the plain text takes its place. */
function guard(draw: () => ReactNode): ReactNode {
  try {
    return draw();
  } catch {
    return undefined;
  }
}
