import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../../shared/messages';
import type { CommentDto } from '../../../../shared/schemas/community';
import { Avatar } from '../../../components/OwnerLink';
import { formatDateTime } from '../../../lib/dates';
import { displayName } from '../../../components/PersonSummary';
import { trpc } from '../../../trpc';
import { CommentForm } from './CommentForm';

/** Who is looking: null when signed out. */
export type Viewer = { _id: string } | null;

/** The author's name as shown (name, else username); null when the author is hidden. */
export function authorName(c: CommentDto): string | null {
  return c.hidden || !c.userId ? null : displayName(c.userId);
}

/** The accessible name of a comment's <article>. */
export function commentLabel(c: CommentDto): string {
  const name = authorName(c);
  return name === null ? 'Hidden comment' : `Comment by ${name}`;
}

/**
 * Refetches the campaign's comments: the loaded pages of threads and of every opened thread's
 * replies (each infinite query again from its first page); the promise settles once they are in.
 */
export function useRefreshComments(campaignId: string) {
  const utils = trpc.useUtils();
  return () => Promise.all([utils.comments.list.invalidate({ campaignId }), utils.comments.replies.invalidate({ campaignId })]);
}

interface CommentItemProps {
  comment: CommentDto;
  campaignId: string;
  viewer: Viewer;
  /** A reply was posted under this comment (it joins the thread): the server's answer. */
  onReplied?(reply: CommentDto): void;
  /** This comment was edited or deleted: the server's answer. */
  onChanged?(comment: CommentDto): void;
}

/**
 * One comment or reply: author (avatar and name linking to the profile), time, text and
 * '(edited)'; for signed-in people Reply, Edit (author only) and Delete with their inline boxes.
 * A deleted comment reads 'comment deleted', dimmed and without actions; a hidden one (its author
 * is blocked by the viewer) shows neither author nor actions. Failures are not shown (spec 8):
 * the list is refetched and the comment stays as the server has it.
 */
export function CommentItem({ comment: c, campaignId, viewer, onReplied, onChanged }: CommentItemProps) {
  const refresh = useRefreshComments(campaignId);
  const [mode, setMode] = useState<'view' | 'reply' | 'edit'>('view');
  const [replyText, setReplyText] = useState('');
  const [editText, setEditText] = useState('');
  const replyButton = useRef<HTMLButtonElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);

  const reply = trpc.comments.create.useMutation({ onSettled: refresh });
  const update = trpc.comments.update.useMutation({ onSettled: refresh });
  const remove = trpc.comments.delete.useMutation({ onSettled: refresh });
  const busy = reply.isPending || update.isPending || remove.isPending;

  const author = c.hidden ? null : c.userId;
  const deleted = c.deletedAt !== null;
  const gone = deleted || c.hidden || !author;
  const canAct = viewer !== null && !gone;
  const isAuthor = canAct && author !== null && author._id === viewer?._id;

  function closeBox(focus: 'reply' | 'edit') {
    setMode('view');
    // back to the button that opened the box (after it is rendered again)
    requestAnimationFrame(() => (focus === 'reply' ? replyButton : editButton).current?.focus());
  }

  function postReply(text: string) {
    reply.mutate(
      { campaignId, data: { text, parentId: c._id } },
      {
        onSuccess: (posted) => {
          setReplyText('');
          closeBox('reply');
          onReplied?.(posted);
        },
      },
    );
  }

  function saveEdit(text: string) {
    if (text === c.text) {
      closeBox('edit');
      return;
    }
    update.mutate(
      { campaignId, commentId: c._id, data: { text } },
      {
        onSuccess: (saved) => {
          closeBox('edit');
          onChanged?.(saved);
        },
      },
    );
  }

  const className = ['comment', deleted && 'comment-deleted', c.hidden && 'comment-hidden'].filter(Boolean).join(' ');

  return (
    <article className={className} aria-label={commentLabel(c)}>
      <header className="comment-head">
        {author && (
          <Link className="comment-author" to={`/profiles/${encodeURIComponent(author._id)}`}>
            <Avatar person={author} size={28} />
            <span className="comment-author-name">{displayName(author)}</span>
          </Link>
        )}
        {author?.name && author.username && <span className="comment-username muted">@{author.username}</span>}
        {!c.hidden && (
          <time className="comment-time" dateTime={c.createdAt.toISOString()}>
            {formatDateTime(c.createdAt)}
          </time>
        )}
        {!gone && c.editedAt && (
          <span className="comment-edited" title={`Edited ${formatDateTime(c.editedAt)}`}>
            {M.edited}
          </span>
        )}
      </header>

      {c.hidden ? (
        <p className="comment-text comment-gone-text">comment hidden</p>
      ) : deleted ? (
        <p className="comment-text comment-gone-text">{M.commentDeleted}</p>
      ) : mode === 'edit' ? (
        <CommentForm
          label="Edit comment"
          submitLabel="Save"
          value={editText}
          onChange={setEditText}
          onSubmit={saveEdit}
          onCancel={() => closeBox('edit')}
          busy={update.isPending}
          blank="ignore"
          autoFocus
        />
      ) : (
        <>
          {/* plain text: React escapes it; pre-wrap keeps the line breaks */}
          <p className="comment-text prewrap">{c.text}</p>
          {c.imageUrl && <img className="comment-image" src={c.imageUrl} alt={`Attached to the ${commentLabel(c).toLowerCase()}`} loading="lazy" />}
        </>
      )}

      {canAct && mode !== 'edit' && (
        <div className="comment-actions">
          <button
            ref={replyButton}
            type="button"
            className="button button-small button-ghost"
            aria-expanded={mode === 'reply'}
            disabled={busy}
            onClick={() => setMode(mode === 'reply' ? 'view' : 'reply')}
          >
            Reply
          </button>
          {isAuthor && (
            <button
              ref={editButton}
              type="button"
              className="button button-small button-ghost"
              disabled={busy}
              onClick={() => {
                setEditText(c.text);
                setMode('edit');
              }}
            >
              Edit
            </button>
          )}
          <button
            type="button"
            className="button button-small button-ghost comment-delete"
            disabled={busy}
            onClick={() => remove.mutate({ campaignId, commentId: c._id }, { onSuccess: (gone) => onChanged?.(gone) })}
          >
            Delete
          </button>
        </div>
      )}

      {canAct && mode === 'reply' && (
        <CommentForm
          className="comment-reply-form"
          label="Write a reply"
          submitLabel="Post reply"
          value={replyText}
          onChange={setReplyText}
          onSubmit={postReply}
          onCancel={() => closeBox('reply')}
          busy={reply.isPending}
          blank="ignore"
          autoFocus
        />
      )}
    </article>
  );
}
