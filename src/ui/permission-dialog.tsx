/**
 * The permission dialog: which tool wants to do what (the tool's own preview), why the engine asks (its trace in
 * words), then: allow once / allow and don't ask again — naming the exact rule and the file it is written to — / deny
 * with a message for the model. Esc denies and interrupts the turn. The call's risk (the engine's classification from
 * the tool's traits) is shown; a destructive call is drawn in red, and its "don't ask again" takes a second step.
 */
import path from 'node:path';
import { Box, Text } from 'ink';
import { useState, type ReactNode } from 'react';
import type { PermissionAnswer, RuntimePermissionRequest } from '../agent/types.js';
import { describeLayer } from '../permissions/explain.js';
import { describeRisk } from '../permissions/risk.js';
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

const MAX_PREVIEW_LINES = 40;

/** A file's line as the person must see it: control characters (escape sequences could redraw the screen) spelled out. */
function visible(line: string): string {
  // eslint-disable-next-line no-control-regex
  return line.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * What the call will do, as its tool prepared it for this prompt (a simulated `sed -i`'s edit): a summary and the
 * diff. Approving approves exactly this (the tool writes what was shown, or nothing).
 */
export function PreviewDiff({ request }: { request: RuntimePermissionRequest }): ReactNode {
  const preview = request.preview;
  if (preview === undefined) return null;
  const rows: ReactNode[] = [];
  let shown = 0;
  let total = 0;
  for (const [h, hunk] of (preview.hunks ?? []).entries()) {
    for (const [i, line] of hunk.lines.entries()) {
      if (line.startsWith('\\')) continue;
      total++;
      if (shown >= MAX_PREVIEW_LINES) continue;
      shown++;
      const color = line.startsWith('+') ? 'green' : line.startsWith('-') ? 'red' : undefined;
      rows.push(
        <Text key={`${h}:${i}`} color={color} dimColor={color === undefined}>
          {visible(line)}
        </Text>,
      );
    }
  }
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold>{visible(preview.summary)}</Text>
      {rows}
      {total > shown ? <Text dimColor>… {total - shown} more lines</Text> : null}
    </Box>
  );
}

/** The risk line: the engine's level in words (absent on a request made without one: nothing claimed). */
export function riskLine(request: RuntimePermissionRequest): string | undefined {
  const risk = request.risk as RuntimePermissionRequest['risk'] | undefined;
  if (risk === undefined) return undefined;
  return describeRisk(risk);
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
  // A destructive call's "don't ask again" is confirmed on a second screen before any rule is written.
  const [confirming, setConfirming] = useState(false);
  const destructive = (request.risk as RuntimePermissionRequest['risk'] | undefined)?.destructive === true;
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
  const always = () => onAnswer({ behavior: 'allow', scope: 'rule', rules, destination: GRANT_DESTINATION });
  const pick = (i: number) => {
    if (i === 0) onAnswer({ behavior: 'allow', scope: 'once' });
    else if (rules.length > 0 && i === 1) {
      if (destructive) setConfirming(true);
      else always();
    } else setTyping(true);
  };
  const confirmChoices: Choice[] = [
    { label: 'Back (nothing is saved)' },
    { label: <Text color="red">Yes, never ask again for these destructive calls</Text>, hint: `adds ${rules.join(', ')} to permissions.allow in ${file}` },
  ];
  let preview: ReactNode;
  try {
    preview = views?.renderPermissionPreview?.(request.input, options);
  } catch {
    preview = undefined;
  }
  return (
    <Box flexDirection="column" borderStyle={destructive ? 'double' : 'round'} borderColor={destructive ? 'red' : 'yellow'} paddingX={1} marginTop={1}>
      <Text bold color={destructive ? 'red' : 'yellow'}>
        {request.agentId ? `A sub-agent (${request.agentId}) asks to use ${name}${shownTarget ? ` on ${shownTarget}` : ''}` : `Allow ${name}${shownTarget ? `(${shownTarget})` : ''}?`}
      </Text>
      {preview ?? <Text>{args || safeText(() => JSON.stringify(request.input))}</Text>}
      <PreviewDiff request={request} />
      {riskLine(request) !== undefined ? (
        <Box marginTop={1}>
          <Text color={destructive ? 'red' : undefined} bold={destructive}>
            {riskLine(request)}
          </Text>
        </Box>
      ) : null}
      <Box marginTop={1}>
        <Text dimColor>{whyAsked(request)}</Text>
      </Box>
      <Box marginTop={1} flexDirection="column">
        {confirming ? (
          <>
            <Text color="red">This call is destructive. Allow every call these rules match from now on, without asking?</Text>
            <Select key="confirm" choices={confirmChoices} onPick={(i) => (i === 1 ? always() : setConfirming(false))} isActive onCancel={() => setConfirming(false)} />
          </>
        ) : (
          <Select choices={choices} onPick={pick} isActive={!typing} onCancel={() => onAnswer({ behavior: 'deny', interrupt: true, message: STOPPED_MESSAGE })} />
        )}
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
