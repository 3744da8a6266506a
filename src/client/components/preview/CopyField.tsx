import { useId, useRef, useState } from 'react';

/**
 * An address shown once (an email invite's link, a new preview link): a read-only field holding
 * it, selected on focus, and a Copy button that puts it on the clipboard ("Copied" is announced).
 * Where the clipboard is not available the text is selected, for the person to copy.
 */
export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'select' | null>(null);

  async function copy() {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setCopied('yes');
    } catch {
      setCopied('select');
    }
  }

  return (
    <div className="copy-field">
      <div className="field">
        <label htmlFor={id}>{label}</label>
        <div className="copy-row">
          <input ref={input} id={id} type="text" readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
          <button type="button" className="button button-secondary button-small" onClick={() => void copy()}>
            Copy
          </button>
        </div>
      </div>
      <p className="field-hint" role="status">
        {copied === 'yes' ? 'Copied.' : copied === 'select' ? 'Selected: press Ctrl+C (or Cmd+C) to copy.' : ''}
      </p>
    </div>
  );
}
