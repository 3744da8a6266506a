import { useId, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { FeedbackInput, type PreviewKind } from '../../../shared/schemas/previews';
import { formatDateTime } from '../../lib/dates';
import { errorMessage } from '../../lib/errors';
import { loginPathFor } from '../../auth/returnTo';
import { trpc } from '../../trpc';
import { TextAreaField } from '../Field';
import { Loading } from '../Loading';
import { Notice } from '../Notice';
import { joinAfterSignIn } from './joinKey';

interface FeedbackThreadProps {
  kind: PreviewKind;
  id: string;
  /** Whether this person reads the thread (the owner always; the circle when the owner lets it). */
  canRead: boolean;
  /** Whether this person writes in it (the owner and the circle's commenters, while a draft). */
  canWrite: boolean;
  /** The owner's view (the texts differ a little). */
  owner: boolean;
  /** A commenter who is to sign in to write (their invite belongs to an account): a Sign in link instead of the form. */
  signInToWrite?: boolean;
}

/**
 * The draft's private feedback (issue #30), apart from the public comments: the thread for whoever
 * reads it, and a form for whoever writes (the owner and commenters). After release the owner
 * still reads it, read-only, and it is left out when there was none.
 */
export function FeedbackThread({ kind, id, canRead, canWrite, owner, signInToWrite = false }: FeedbackThreadProps) {
  const headingId = useId();
  const feedback = trpc.previews.feedback.useQuery({ kind, id }, { enabled: canRead });
  if (!canRead && !canWrite && !signInToWrite) return null;
  const items = feedback.data?.items ?? [];
  const readOnly = feedback.data?.readOnly ?? !canWrite;
  // a released item's thread, for its owner: only when there was feedback
  if (owner && !canWrite && (feedback.isPending || (feedback.isSuccess && items.length === 0))) return null;
  return (
    <section className="card feedback-thread" aria-labelledby={headingId}>
      <h2 id={headingId}>Private feedback</h2>
      <p className="muted">
        {owner
          ? readOnly
            ? 'What your circle said while this was a draft. It stays private, and closed now.'
            : 'Only you and your circle take part here; it is never shown with the public comments.'
          : canRead
            ? 'Only the owner and the circle read this; it is never shown with the public comments.'
            : signInToWrite
              ? 'This invite was sent to the address of an account: sign in to give the owner feedback.'
              : 'Only the owner reads what you send here.'}
      </p>
      {canRead &&
        (feedback.isPending ? (
          <Loading />
        ) : feedback.isError ? (
          <Notice kind="error">{errorMessage(feedback.error, M.requestFailed)}</Notice>
        ) : items.length === 0 ? (
          <p className="muted">No feedback yet.</p>
        ) : (
          <ul className="feedback-list" aria-label="Feedback so far">
            {items.map((f) => (
              <li key={f._id} className="feedback-item">
                <p className="feedback-head">
                  <span className="feedback-author">{f.authorName}</span>
                  {f.guest && <span className="muted"> (guest)</span>}
                  <span className="muted">
                    {' · '}
                    <time dateTime={new Date(f.createdAt).toISOString()}>{formatDateTime(new Date(f.createdAt))}</time>
                  </span>
                </p>
                <p className="prewrap">{f.body}</p>
              </li>
            ))}
          </ul>
        ))}
      {canWrite && !readOnly && <FeedbackForm kind={kind} id={id} showsThread={canRead} />}
      {signInToWrite && (
        <p>
          <Link
            className="button button-secondary"
            to={loginPathFor(`/${kind}s/${id}`)}
            onClick={() => {
              try {
                sessionStorage.setItem(joinAfterSignIn(id), '1');
              } catch {
                // storage refused: nothing else to do
              }
            }}
          >
            Sign in to give feedback
          </Link>
        </p>
      )}
    </section>
  );
}

function FeedbackForm({ kind, id, showsThread }: { kind: PreviewKind; id: string; showsThread: boolean }) {
  const formRef = useRef<HTMLFormElement>(null);
  const [body, setBody] = useState('');
  const [error, setError] = useState<string | undefined>();
  const utils = trpc.useUtils();
  const add = trpc.previews.addFeedback.useMutation({
    onSuccess: (item) => {
      setBody('');
      utils.previews.feedback.setData({ kind, id }, (old) => (old ? { ...old, items: [...old.items, item] } : old));
      void utils.previews.feedback.invalidate({ kind, id });
    },
  });

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const v = FeedbackInput.safeParse({ body });
    if (!v.success) {
      setError(v.error.issues[0]?.message ?? M.feedbackBody);
      formRef.current?.querySelector('textarea')?.focus();
      return;
    }
    setError(undefined);
    add.mutate({ kind, id, data: v.data });
  }

  return (
    <form ref={formRef} className="form feedback-form" onSubmit={submit} noValidate>
      <TextAreaField
        label="Your feedback"
        rows={4}
        maxLength={2000}
        value={body}
        onChange={(e) => {
          setBody(e.target.value);
          add.reset();
        }}
        error={error}
      />
      <div className="form-actions">
        <button type="submit" className="button" disabled={add.isPending}>
          {add.isPending ? 'Sending…' : 'Send feedback'}
        </button>
      </div>
      <Notice kind="error">{add.isError ? errorMessage(add.error, M.requestFailed) : null}</Notice>
      {add.isSuccess && <Notice kind="success">{showsThread ? 'Feedback sent.' : 'Feedback sent to the owner.'}</Notice>}
    </form>
  );
}
