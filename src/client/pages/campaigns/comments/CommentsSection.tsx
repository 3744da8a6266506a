import { useState } from 'react';
import { Link } from 'react-router-dom';
import type { CommentThreadDto } from '../../../../shared/schemas/community';
import { useSession } from '../../../auth/useSession';
import { Loading } from '../../../components/Loading';
import { trpc } from '../../../trpc';
import { CommentForm } from './CommentForm';
import { authorName, CommentItem, useRefreshComments, type Viewer } from './CommentItem';

/**
 * The Comments section of /campaigns/{id} (spec sections 2-6): the threads oldest first with
 * their replies indented, and for signed-in people a post box; signed-out people get a link to
 * log in. Every change refetches the list; failed changes are not shown (spec section 8).
 */
export function CommentsSection({ campaignId }: { campaignId: string }) {
  const session = useSession();
  const list = trpc.comments.list.useQuery({ campaignId });
  const viewer: Viewer = session.user ? { _id: session.user._id } : null;

  return (
    <section className="comments" aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <p className="muted">
          Comments could not be loaded.{' '}
          <button type="button" className="button button-small button-ghost" onClick={() => void list.refetch()}>
            Try again
          </button>
        </p>
      ) : list.data.length === 0 ? (
        <p className="muted comments-empty">No comments yet.</p>
      ) : (
        <ol className="comment-list">
          {list.data.map((t) => (
            <Thread key={t._id} thread={t} campaignId={campaignId} viewer={viewer} />
          ))}
        </ol>
      )}
      {session.isLoading ? null : viewer ? (
        <PostBox campaignId={campaignId} />
      ) : (
        <p className="comments-login">
          <Link to="/login">Log in</Link> to comment.
        </p>
      )}
    </section>
  );
}

function Thread({ thread, campaignId, viewer }: { thread: CommentThreadDto; campaignId: string; viewer: Viewer }) {
  const { replies, ...comment } = thread;
  const name = authorName(comment);
  return (
    <li className="comment-thread">
      <CommentItem comment={comment} campaignId={campaignId} viewer={viewer} />
      {replies.length > 0 && (
        <ol className="comment-replies" aria-label={name === null ? 'Replies' : `Replies to ${name}`}>
          {replies.map((r) => (
            <li key={r._id}>
              <CommentItem comment={r} campaignId={campaignId} viewer={viewer} />
            </li>
          ))}
        </ol>
      )}
    </li>
  );
}

/** 'Write a comment' and 'Post': disabled while the text is blank or a post is on its way. */
function PostBox({ campaignId }: { campaignId: string }) {
  const refresh = useRefreshComments(campaignId);
  const [text, setText] = useState('');
  const create = trpc.comments.create.useMutation({ onSettled: refresh });
  return (
    <CommentForm
      className="comment-post-form"
      label="Write a comment"
      submitLabel="Post"
      value={text}
      onChange={setText}
      onSubmit={(t) => create.mutate({ campaignId, data: { text: t } }, { onSuccess: () => setText('') })}
      busy={create.isPending}
      blank="disable"
    />
  );
}
