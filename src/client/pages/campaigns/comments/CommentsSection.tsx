import { useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { M } from '../../../../shared/messages';
import type { CommentDto, CommentThreadDto } from '../../../../shared/schemas/community';
import { useSession } from '../../../auth/useSession';
import { Loading } from '../../../components/Loading';
import { trpc } from '../../../trpc';
import { CommentForm } from './CommentForm';
import { authorName, CommentItem, useRefreshComments, type Viewer } from './CommentItem';
import { MoreButton, useFocusFirstNew } from './MoreButton';

/** Replies asked for at a time once a thread is opened past the ones that come with it. */
const REPLIES_PAGE_SIZE = 50;

const nextCursor = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

/** Adds a comment to a list of one's own, or puts the server's newer copy in its place. */
function upsert(list: CommentDto[], c: CommentDto): CommentDto[] {
  return list.some((x) => x._id === c._id) ? list.map((x) => (x._id === c._id ? c : x)) : [...list, c];
}

/**
 * What this person posted that the loaded pages do not hold (yet): the newest comment is at the
 * end of a list that may not be loaded that far. Shown after the loaded ones until a page has it.
 */
function notLoaded(own: CommentDto[], loaded: { _id: string }[]): CommentDto[] {
  if (!own.length) return own;
  const ids = new Set(loaded.map((x) => x._id));
  return own.filter((c) => !ids.has(c._id));
}

/**
 * The Comments section of /campaigns/{id} (spec sections 2-6): the threads oldest first with
 * their replies indented, a page at a time ('Load more comments' while there are more), and for
 * signed-in people a post box; signed-out people get a link to log in. Every change refetches
 * the loaded pages; failed changes are not shown (spec section 8).
 */
export function CommentsSection({ campaignId }: { campaignId: string }) {
  const session = useSession();
  const list = trpc.comments.list.useInfiniteQuery({ campaignId }, { getNextPageParam: nextCursor });
  const viewer: Viewer = session.user ? { _id: session.user._id } : null;
  const [posted, setPosted] = useState<CommentDto[]>([]);
  const listRef = useRef<HTMLOListElement>(null);

  const threads: CommentThreadDto[] = list.data?.pages.flatMap((p) => p.items) ?? [];
  const own = notLoaded(posted, threads).map((c) => ({ ...c, replies: [], moreReplies: false, repliesNextCursor: null }));
  const shown = [...threads, ...own];
  const focus = useFocusFirstNew(listRef, threads.length, list.hasNextPage);
  const changed = (c: CommentDto) => setPosted((p) => (p.some((x) => x._id === c._id) ? upsert(p, c) : p));

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
      ) : shown.length === 0 ? (
        <p className="muted comments-empty">No comments yet.</p>
      ) : (
        <ol className="comment-list" ref={listRef}>
          {shown.map((t) => (
            <Thread key={t._id} thread={t} campaignId={campaignId} viewer={viewer} onChanged={changed} />
          ))}
        </ol>
      )}
      {list.hasNextPage && (
        <MoreButton
          className="comments-more"
          label={M.loadMoreComments}
          busy={list.isFetchingNextPage}
          failed={list.isFetchNextPageError}
          onMore={() => {
            focus.mark(threads.length);
            void list.fetchNextPage();
          }}
        />
      )}
      {session.isLoading ? null : viewer ? (
        <PostBox campaignId={campaignId} onPosted={(c) => setPosted((p) => upsert(p, c))} />
      ) : (
        <p className="comments-login">
          <Link to="/login">Log in</Link> to comment.
        </p>
      )}
    </section>
  );
}

/**
 * A thread: its comment and the replies that came with it; 'Show more replies' when it has more,
 * which loads its replies from the first by pages of REPLIES_PAGE_SIZE.
 */
function Thread({ thread, campaignId, viewer, onChanged }: { thread: CommentThreadDto; campaignId: string; viewer: Viewer; onChanged(c: CommentDto): void }) {
  const { replies, moreReplies, repliesNextCursor: _next, ...comment } = thread;
  const name = authorName(comment);
  const [opened, setOpened] = useState(false);
  const [posted, setPosted] = useState<CommentDto[]>([]);
  const listRef = useRef<HTMLOListElement>(null);
  const more = trpc.comments.replies.useInfiniteQuery(
    { campaignId, commentId: thread._id, limit: REPLIES_PAGE_SIZE },
    { enabled: opened, getNextPageParam: nextCursor },
  );
  const loaded = opened && more.data ? more.data.pages.flatMap((p) => p.items) : replies;
  const hasMore = opened && more.data ? more.hasNextPage : moreReplies;
  const shown = [...loaded, ...notLoaded(posted, loaded)];
  const busy = opened && (more.isPending || more.isFetchingNextPage);
  const focus = useFocusFirstNew(listRef, loaded.length, hasMore);
  const replied = (r: CommentDto) => setPosted((p) => upsert(p, r));
  const replyChanged = (r: CommentDto) => setPosted((p) => (p.some((x) => x._id === r._id) ? upsert(p, r) : p));

  return (
    <li className="comment-thread">
      <CommentItem comment={comment} campaignId={campaignId} viewer={viewer} onReplied={replied} onChanged={onChanged} />
      {shown.length > 0 && (
        <ol className="comment-replies" ref={listRef} aria-label={name === null ? 'Replies' : `Replies to ${name}`}>
          {shown.map((r) => (
            <li key={r._id}>
              <CommentItem comment={r} campaignId={campaignId} viewer={viewer} onReplied={replied} onChanged={replyChanged} />
            </li>
          ))}
        </ol>
      )}
      {hasMore && (
        <MoreButton
          className="comment-more-replies"
          label={M.showMoreReplies}
          busy={busy}
          failed={more.isError || more.isFetchNextPageError}
          onMore={() => {
            focus.mark(loaded.length);
            if (!opened) setOpened(true);
            else if (more.isError) void more.refetch();
            else void more.fetchNextPage();
          }}
        />
      )}
    </li>
  );
}

/** 'Write a comment' and 'Post': disabled while the text is blank or a post is on its way. */
function PostBox({ campaignId, onPosted }: { campaignId: string; onPosted(c: CommentDto): void }) {
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
      onSubmit={(t) =>
        create.mutate(
          { campaignId, data: { text: t } },
          {
            onSuccess: (c) => {
              setText('');
              onPosted(c);
            },
          },
        )
      }
      busy={create.isPending}
      blank="disable"
    />
  );
}
