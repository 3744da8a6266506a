import { useId } from 'react';
import { M } from '../../../shared/messages';
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

/** /blocked (signed in only): the people I blocked, each with their id and Unblock; 'No blocked users.' when none. */
export default function BlockedPage() {
  usePageTitle('Blocked profiles');
  const utils = trpc.useUtils();
  const list = trpc.blocks.list.useQuery();
  const unblock = trpc.blocks.unblock.useMutation({
    onSuccess: (_res, input) => {
      utils.blocks.list.setData(undefined, (old) => old && { blocked: old.blocked.filter((b) => b.userId !== input.userId) });
    },
    onSettled: () => void utils.blocks.list.invalidate(),
  });

  let body;
  if (list.isPending) body = <Loading />;
  else if (list.isError) {
    body = (
      <div className="list-error">
        <Notice kind="error">{errorMessage(list.error, M.requestFailed)}</Notice>
        <button type="button" className="button button-secondary" onClick={() => void list.refetch()}>
          Try again
        </button>
      </div>
    );
  } else if (!list.data.blocked.length) body = <p className="empty-state muted">{M.noBlockedUsers}</p>;
  else {
    body = (
      <ul className="people-rows" aria-label="Blocked people">
        {list.data.blocked.map((b) => (
          <BlockedRow
            key={b.userId}
            person={b}
            busy={unblock.isPending && unblock.variables?.userId === b.userId}
            onUnblock={() => unblock.mutate({ userId: b.userId })}
          />
        ))}
      </ul>
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
