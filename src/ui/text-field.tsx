/** A one-line text input for dialogs (a denial's message, an "other" answer): Enter submits, Esc goes back. */
import { Text } from 'ink';
import { useKeys } from './use-keys.js';
import { useRef, useState, type ReactNode } from 'react';

export function TextField({ placeholder, onSubmit, onCancel }: { placeholder: string; onSubmit: (text: string) => void; onCancel: () => void }): ReactNode {
  const [value, setState] = useState('');
  const latest = useRef('');
  const setValue = (v: string) => {
    latest.current = v;
    setState(v);
  };
  useKeys((input, key) => {
    const v = latest.current;
    if (key.return) onSubmit(v);
    else if (key.escape) onCancel();
    else if (key.backspace || key.delete) setValue(v.slice(0, -1));
    else if (!key.ctrl && !key.meta && input) {
      // "text\r" in one chunk: the text, then Enter.
      if (/^[^\r\n]+\r$/.test(input)) onSubmit(v + input.slice(0, -1));
      else setValue(v + input.replace(/[\r\n]+/g, ' '));
    }
  });
  return (
    <Text>
      <Text color="cyan">› </Text>
      {value === '' ? <Text dimColor>{placeholder}</Text> : value}
      <Text inverse> </Text>
    </Text>
  );
}
