import { keepPreviousData } from '@tanstack/react-query';
import { useEffect, useId, useState, type ClipboardEvent, type KeyboardEvent } from 'react';
import { TAG_SUGGESTIONS } from '../../shared/constants';
import { normaliseTags } from '../../shared/tags';
import { trpc } from '../trpc';
import { FieldError, FieldLabel } from './Field';

const SUGGEST_DELAY_MS = 200;

interface TagInputProps {
  /** The accessible name of the text box: exactly the <label> text. */
  label: string;
  hint?: string;
  tags: string[];
  onChange(tags: string[]): void;
  error?: string;
}

/**
 * Tags as removable chips (spec section 5): Enter or a comma adds what was typed, lower-cased and
 * trimmed; empty and duplicate tags are ignored. While typing, up to six tags already in use are
 * suggested (trpc.tags.search); a click adds one.
 */
export function TagInput({ label, hint, tags, onChange, error }: TagInputProps) {
  const id = useId();
  const [text, setText] = useState('');
  const [focused, setFocused] = useState(false);
  const [query, setQuery] = useState('');

  // ask for suggestions once typing pauses
  useEffect(() => {
    const t = setTimeout(() => setQuery(text.trim().toLowerCase()), SUGGEST_DELAY_MS);
    return () => clearTimeout(t);
  }, [text]);

  const search = trpc.tags.search.useQuery(
    { q: query, limit: TAG_SUGGESTIONS },
    { enabled: query.length > 0, placeholderData: keepPreviousData, staleTime: 60_000 },
  );
  const suggestions = query && text.trim() ? (search.data?.tags ?? []).filter((t) => !tags.includes(t)).slice(0, TAG_SUGGESTIONS) : [];

  function add(raw: string | string[]) {
    const next = normaliseTags([...tags, ...(Array.isArray(raw) ? raw : [raw])]);
    if (next.length !== tags.length) onChange(next);
  }

  function commitText() {
    if (text.trim()) add(text.split(','));
    setText('');
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === 'Enter' || e.key === ',') {
      // Enter must not submit the form; a comma must not land in the box
      e.preventDefault();
      commitText();
    } else if (e.key === 'Backspace' && text === '' && tags.length) {
      onChange(tags.slice(0, -1));
    }
  }

  function onPaste(e: ClipboardEvent<HTMLInputElement>) {
    const pasted = e.clipboardData.getData('text');
    if (!pasted.includes(',')) return;
    e.preventDefault();
    const parts = (text + pasted).split(',');
    const last = parts.pop() ?? '';
    add(parts);
    setText(last.trimStart());
  }

  function remove(tag: string) {
    onChange(tags.filter((t) => t !== tag));
  }

  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const listId = `${id}-suggestions`;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus and blur bubble up from the box and the suggestions; the wrapper itself takes no input
    <div
      className="field tag-field"
      // focus anywhere in the field (the box or a suggestion) keeps the suggestions open
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (e.currentTarget.contains(e.relatedTarget as Node | null)) return;
        setFocused(false);
        // what was typed is not lost when the person moves on
        commitText();
      }}
    >
      <FieldLabel htmlFor={id} label={label} hint={hint} hintId={hintId} />
      <div className={`tag-box${error ? ' tag-box-invalid' : ''}`}>
        {tags.length > 0 && (
          <ul className="tag-chips">
            {tags.map((t) => (
              <li key={t} className="tag-chip">
                <span>{t}</span>
                <button type="button" className="tag-chip-remove" onClick={() => remove(t)} aria-label={`Remove tag ${t}`}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <input
          id={id}
          type="text"
          value={text}
          autoComplete="off"
          placeholder={tags.length ? '' : 'Type a tag, then Enter'}
          onChange={(e) => {
            const v = e.target.value;
            // a comma typed on a phone keyboard (no keydown key) still adds the tag
            if (v.includes(',')) {
              const parts = v.split(',');
              const last = parts.pop() ?? '';
              add(parts);
              setText(last.trimStart());
            } else {
              setText(v);
            }
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-invalid={error ? true : undefined}
          aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
          aria-controls={suggestions.length ? listId : undefined}
        />
      </div>
      {focused && suggestions.length > 0 && (
        <ul id={listId} className="tag-suggestions" aria-label="Tag suggestions">
          {suggestions.map((t) => (
            <li key={t}>
              <button
                type="button"
                className="tag-suggestion"
                // keep the focus in the text box while clicking
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => {
                  add(t);
                  setText('');
                }}
              >
                {t}
              </button>
            </li>
          ))}
        </ul>
      )}
      <FieldError id={errorId} error={error} />
    </div>
  );
}
