import { useId, type ReactNode } from 'react';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { InfiniteScrollSentinel } from '../../components/InfiniteScrollSentinel';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { PersonSummary } from '../../components/PersonSummary';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';

interface Blocked {
  userId: string;
  username: string | null;
  name: string | null;
  imageUrl: string | null;
}

const PAGE = { limit: PAGE_SIZE };

/**
 * /blocked (signed in only): the people I blocked, newest first, each with their id and Unblock;
 * 'No blocked users.' when none. Pages of 20; the next loads as the end of the list scrolls into
 * view (infinite scroll, as the other lists).
 */
export default function BlockedPage() {
  usePageTitle('Blocked profiles');
  const utils = trpc.useUtils();
  const list = trpc.blocks.list.useInfiniteQuery(PAGE, { getNextPageParam: (last) => last.nextCursor ?? undefined });
  const unblock = trpc.blocks.unblock.useMutation({
    onSuccess: (_res, input) => {
      utils.blocks.list.setInfiniteData(
        PAGE,
        (old) => old && { ...old, pages: old.pages.map((p) => ({ ...p, blocked: p.blocked.filter((b) => b.userId !== input.userId) })) },
      );
      utils.blocks.status.setData({ userId: input.userId }, { blocked: false, userId: input.userId });
    },
    onSettled: () => void utils.blocks.invalidate(),
  });

  let body: ReactNode;
  if (list.isPending) body = <Loading />;
  else if (list.isError && !list.data) {
    body = (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  } else {
    const blocked = list.data.pages.flatMap((p) => p.blocked);
    body = (
      <>
        {!blocked.length ? (
          !list.hasNextPage && <p className="empty-state muted">{M.noBlockedUsers}</p>
        ) : (
          <ul className="people-rows" aria-label="Blocked people">
            {blocked.map((b) => (
              <BlockedRow
                key={b.userId}
                person={b}
                busy={unblock.isPending && unblock.variables?.userId === b.userId}
                onUnblock={() => unblock.mutate({ userId: b.userId })}
              />
            ))}
          </ul>
        )}
        <InfiniteScrollSentinel
          hasMore={list.hasNextPage}
          loading={list.isFetchingNextPage}
          failed={list.isFetchNextPageError}
          onLoadMore={() => void list.fetchNextPage()}
        />
        {list.isFetchingNextPage && <Loading />}
        {list.isFetchNextPageError && (
          <div className="list-error">
            <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
            <button type="button" className="button button-secondary" onClick={() => void list.fetchNextPage()}>
              Try again
            </button>
          </div>
        )}
      </>
    );
  }

  return (
    <section className="page page-narrow">
      <h1>Blocked profiles</h1>
      <p className="muted">People you blocked cannot invite you to teams or ask to join yours, and their comments are hidden from you.</p>
      {unblock.isError && <Notice kind="error">{errorMessage(unblock.error, M.requestFailed)}</Notice>}
      {body}
    </section>
  );
}

function BlockedRow({ person, busy, onUnblock }: { person: Blocked; busy: boolean; onUnblock(): void }) {
  const nameId = useId();
  return (
    <li className="people-row">
      <PersonSummary
        person={{ _id: person.userId, username: person.username, name: person.name, imageUrl: person.imageUrl }}
        nameId={nameId}
        avatarSize={40}
        extra={<span className="person-id muted">ID: {person.userId}</span>}
        actions={
          <button type="button" className="button button-small button-secondary" onClick={onUnblock} disabled={busy} aria-describedby={nameId}>
            Unblock
          </button>
        }
      />
    </li>
  );
}
