/**
 * The permission dialog: which tool wants to do what (the tool's own preview), why the engine asks (its trace in
 * words), then: allow once / allow and don't ask again — naming the exact rule and the file it is written to — / deny
 * with a message for the model. Esc denies and interrupts the turn.
 */
import path from 'node:path';
import { Box, Text } from 'ink';
import { useState, type ReactNode } from 'react';
import type { PermissionAnswer, RuntimePermissionRequest } from '../agent/types.js';
import { describeLayer } from '../permissions/explain.js';
import { grantFile } from '../settings/grants.js';
import type { ToolRenderOptions, ToolViews } from '../tool/tool.js';
import { Select, type Choice } from './select.js';
import { safeText, toolTitle } from './plain-text.js';
import { TextField } from './text-field.js';

/** What the model reads for a call refused with Esc: the turn ends there, and the model waits for the person. */
export const STOPPED_MESSAGE = "The user refused this call and stopped the turn: it was not run. Wait for the user's next message before doing anything more.";

/** Where "don't ask again" writes: the project's local settings (not committed, this person only). */
export const GRANT_DESTINATION = 'localSettings' as const;

/** The engine's reason for asking, in a sentence or two: the reason, the layer when it says more, the rule and its file. */
export function whyAsked(request: RuntimePermissionRequest): string {
  const trace = request.ask.decisionReason;
  if (!trace) return `Why: ${request.ask.message}`;
  const layer = trace.layer === 'prompt' || trace.layer === 'mode' ? '' : ` (${describeLayer(trace.layer)})`;
  const parts = [`Why: ${trace.reason}${layer}`];
  if (trace.rule !== undefined) parts.push(`Rule: ${trace.rule}${trace.sourceFile ? ` in ${trace.sourceFile}` : trace.source ? ` (${trace.source})` : ''}`);
  if (trace.subcommand !== undefined && trace.subcommand !== request.input.command) parts.push(`Part of the command: ${trace.subcommand}`);
  return parts.join('\n');
}

export function PermissionDialog({
  request,
  views,
  options,
  onAnswer,
}: {
  request: RuntimePermissionRequest;
  views?: ToolViews;
  options: ToolRenderOptions;
  onAnswer: (answer: PermissionAnswer) => void;
}): ReactNode {
  const [typing, setTyping] = useState(false);
  const { name, args } = toolTitle(request.tool, request.input);
  // A tool that works on a file names it (its getPath, not its name): the preview below may show only a diff.
  const target = safeText(() => request.tool.getPath?.(request.input as never));
  const shownTarget = target ? (path.isAbsolute(target) && !path.relative(options.cwd, target).startsWith('..') ? path.relative(options.cwd, target) : target) : '';
  const rules = request.suggestedRules;
  const file = path.relative(options.cwd, grantFile(GRANT_DESTINATION, { projectDir: options.cwd }));
  const choices: Choice[] = [{ label: 'Yes, this once' }];
  if (rules.length > 0) {
    choices.push({
      label: (
        <Text>
          Yes, and don&apos;t ask again for <Text bold>{rules.join(', ')}</Text>
        </Text>
      ),
      hint: `adds ${rules.length === 1 ? 'the rule' : 'these rules'} to permissions.allow in ${file}`,
    });
  }
  choices.push({ label: 'No, and tell the model what to do instead' });
  const pick = (i: number) => {
    if (i === 0) onAnswer({ behavior: 'allow', scope: 'once' });
    else if (rules.length > 0 && i === 1) onAnswer({ behavior: 'allow', scope: 'rule', rules, destination: GRANT_DESTINATION });
    else setTyping(true);
  };
  let preview: ReactNode;
  try {
    preview = views?.renderPermissionPreview?.(request.input, options);
  } catch {
    preview = undefined;
  }
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1} marginTop={1}>
      <Text bold color="yellow">
        {request.agentId ? `A sub-agent (${request.agentId}) asks to use ${name}${shownTarget ? ` on ${shownTarget}` : ''}` : `Allow ${name}${shownTarget ? `(${shownTarget})` : ''}?`}
      </Text>
      {preview ?? <Text>{args || safeText(() => JSON.stringify(request.input))}</Text>}
      <Box marginTop={1}>
        <Text dimColor>{whyAsked(request)}</Text>
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Select choices={choices} onPick={pick} isActive={!typing} onCancel={() => onAnswer({ behavior: 'deny', interrupt: true, message: STOPPED_MESSAGE })} />
        {typing ? (
          <TextField
            placeholder="what the model should do instead (Enter sends)"
            onSubmit={(text) => onAnswer({ behavior: 'deny', message: text.trim() ? `The user refused: ${text.trim()}` : undefined })}
            onCancel={() => setTyping(false)}
          />
        ) : (
          <Text dimColor>↑/↓ choose · Enter confirm · Esc deny and stop</Text>
        )}
      </Box>
    </Box>
  );
}
