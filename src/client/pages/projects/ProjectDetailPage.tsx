import { Suspense, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router-dom';
import { MAX_PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { ProjectDto } from '../../../shared/schemas/projects';
import { useSession } from '../../auth/useSession';
import { categoryLabel, goalText, visibilityLabel } from '../../components/itemText';
import { DraftBanner } from '../../components/DraftBanner';
import { CircleBanner } from '../../components/preview/CircleBanner';
import { CirclePanel, FeedbackThread, GuestContinue, useCircleView } from '../../components/preview/DraftCircle';
import { ImageGallery } from '../../components/ImageGallery';
import { ImageOverlay } from '../../components/ImageOverlay';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { OwnerLink, personName } from '../../components/OwnerLink';
import { ProjectTeams } from '../../components/ProjectTeams';
import { ShareButton } from '../../components/ShareButton';
import { PageNotice, usePageNotice } from '../campaigns/pageNotice';
import { SuggestedPeopleList } from '../../components/SuggestedPeopleList';
import { TagPills } from '../../components/TagPills';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';
import { FavoriteButton } from '../../components/FavoriteButton';

const NO_SUGGESTIONS = 'No suggestions yet.';
const NO_TEAM_TO_INVITE = 'To invite people, create a team for this project first.';

const BackLink = () => (
  <Link className="back-link" to="/projects">
    Back to projects
  </Link>
);

const followersText = (n: number) => `${n} ${n === 1 ? 'follower' : 'followers'}`;

/** /projects/{id}: the project, Follow for signed-in people, Edit/Delete and suggested people for its owner. */
export default function ProjectDetailPage() {
  const { id = '' } = useParams();
  const project = trpc.projects.get.useQuery({ id }, { enabled: id !== '' });
  usePageTitle(project.data?.title ?? 'Project');

  if (project.isPending) return <Loading />;
  if (project.isError) {
    const notFound = httpStatus(project.error) === 404;
    return (
      <section className="page item-detail">
        {notFound ? <h1>{M.notFound}</h1> : <Notice kind="error">{errorMessage(project.error, M.requestFailed)}</Notice>}
        <p>
          <BackLink />
        </p>
      </section>
    );
  }
  return <ProjectView p={project.data} />;
}

function ProjectView({ p }: { p: ProjectDto }) {
  const { user, isSignedIn } = useSession();
  const isOwner = user !== null && user._id === p.ownerId._id;
  const [coverOpen, setCoverOpen] = useState(false);
  const cover = p.coverUrl ?? p.imageUrl;
  const coverAlt = `${p.title} cover`;
  const path = `/projects/${encodeURIComponent(p._id)}`;
  // following and saving open at release (a draft is seen by its owner and its circle)
  const released = p.visibility === 'released';
  const circle = useCircleView('project', p._id, !released, isOwner);
  // "Project created." from the create form, once, with the offer to share it (#33)
  const notice = usePageNotice();
  if (circle.state === 'loading') return <Loading />;
  if (circle.state === 'continue')
    return (
      <Suspense fallback={<Loading />}>
        <GuestContinue kind="project" id={p._id} />
      </Suspense>
    );

  return (
    <article className="page item-detail">
      <BackLink />
      <PageNotice text={notice} />
      {notice === M.projectCreated && released && (
        <div className="share-notice notice notice-info">
          <p>Share it: the first people to hear about a project are the ones who join it first.</p>
          <ShareButton title={p.title} className="button button-small" label="Share it" />
        </div>
      )}
      {isOwner && !released && <DraftBanner kind="project" item={p} />}
      {circle.state === 'member' && <CircleBanner releaseAt={p.releaseAt} me={circle.me} />}
      <header className="item-head">
        <h1>{p.title}</h1>
        <span className="type-badge">{categoryLabel(p.type)}</span>
        {p.visibility !== 'released' && <span className="status-badge">{visibilityLabel(p.visibility)}</span>}
        {p.visibility === 'released' && <ShareButton title={p.title} />}
      </header>
      <div className="detail-grid">
        <div className="detail-main">
          {cover ? (
            <button type="button" className="image-button cover" onClick={() => setCoverOpen(true)} aria-label="Enlarge cover image">
              <img src={cover} alt={coverAlt} />
            </button>
          ) : (
            <div className="cover cover-placeholder" role="img" aria-label={`${p.title} (no image)`}>
              <span aria-hidden="true">{p.title.trim().charAt(0).toUpperCase() || '?'}</span>
            </div>
          )}
          {coverOpen && cover && <ImageOverlay src={cover} alt={coverAlt} onClose={() => setCoverOpen(false)} />}
          <section className="description" aria-labelledby="about-heading">
            <h2 id="about-heading">About</h2>
            {p.description.trim() ? <p className="prewrap">{p.description}</p> : <p className="muted">No description yet.</p>}
          </section>
          <ImageGallery images={p.images} title={p.title} />
        </div>
        <aside className="detail-side card" aria-label="Project details">
          <div className="owner-row">
            <OwnerLink person={p.ownerId} avatar size={40} />
          </div>
          <dl className="facts">
            <div>
              <dt>Type</dt>
              <dd>{categoryLabel(p.type)}</dd>
            </div>
            {p.goalAmount > 0 && (
              <div>
                <dt>Goal</dt>
                <dd>{goalText(p)}</dd>
              </div>
            )}
            <div>
              <dt>Followers</dt>
              <dd>{followersText(p.supporters)}</dd>
            </div>
          </dl>
          <TagPills tags={p.tags} basePath="/projects" />
          {isSignedIn && (released || isOwner) && <FollowButton project={p} />}
          {(released || isOwner) && <FavoriteButton targetType="project" targetId={p._id} mode="toggle" />}
          {isOwner && <OwnerActions id={p._id} editPath={`${path}/edit`} />}
        </aside>
      </div>
      {isOwner && (
        <Suspense fallback={<Loading />}>
          <CirclePanel kind="project" id={p._id} released={released} />
          <FeedbackThread kind="project" id={p._id} canRead canWrite={!released} owner />
        </Suspense>
      )}
      {circle.state === 'member' && (
        <Suspense fallback={<Loading />}>
          <FeedbackThread
            kind="project"
            id={p._id}
            canRead={circle.me.canReadFeedback}
            canWrite={circle.me.canWriteFeedback}
            owner={false}
            signInToWrite={circle.signInToWrite}
          />
        </Suspense>
      )}
      {isOwner && <SuggestedPeople projectId={p._id} />}
      {(released || isOwner) && <ProjectTeams projectId={p._id} />}
    </article>
  );
}

function FollowButton({ project }: { project: ProjectDto }) {
  const utils = trpc.useUtils();
  const onSuccess = (r: { following: boolean; followers: number }) => {
    utils.projects.get.setData({ id: project._id }, (old) => (old ? { ...old, following: r.following, supporters: r.followers, support: r.followers } : old));
  };
  const follow = trpc.projects.follow.useMutation({ onSuccess });
  const unfollow = trpc.projects.unfollow.useMutation({ onSuccess });
  const busy = follow.isPending || unfollow.isPending;
  const failed = follow.isError ? follow.error : unfollow.isError ? unfollow.error : null;
  return (
    <div className="follow">
      <button
        type="button"
        className={`button ${project.following ? 'button-secondary' : ''}`}
        disabled={busy}
        onClick={() => (project.following ? unfollow.mutate({ id: project._id }) : follow.mutate({ id: project._id }))}
      >
        {project.following ? 'Unfollow' : 'Follow'}
      </button>
      <Notice kind="error">{failed ? errorMessage(failed, M.requestFailed) : null}</Notice>
    </div>
  );
}

function OwnerActions({ id, editPath }: { id: string; editPath: string }) {
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState(false);
  const remove = trpc.projects.delete.useMutation({
    onSuccess() {
      void utils.projects.list.reset();
      // gone: Back must not show it from the cache
      void utils.projects.get.invalidate({ id }, { refetchType: 'none' });
      void navigate('/projects', { replace: true });
    },
  });
  const busy = remove.isPending || remove.isSuccess;
  return (
    <div className="owner-actions">
      <div className="button-row">
        <Link className="button button-secondary" to={editPath}>
          Edit
        </Link>
        {!confirming && (
          <button type="button" className="button button-danger" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )}
      </div>
      {confirming && (
        // biome-ignore lint/a11y/useSemanticElements: a question and its two buttons, not form fields under a legend
        <div className="confirm" role="group" aria-label="Confirm delete">
          <p>Delete this project? This cannot be undone.</p>
          <div className="button-row">
            <button type="button" className="button button-danger" disabled={busy} onClick={() => remove.mutate({ id })}>
              Yes, delete
            </button>
            <button type="button" className="button button-ghost" disabled={busy} onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <Notice kind="error">{remove.isError ? errorMessage(remove.error, M.requestFailed) : null}</Notice>
    </div>
  );
}

/**
 * The owner's panel of people whose tags match the project's (never anyone blocked either way
 * with the owner), each with Invite: an invite as a member of one of the project's teams (the
 * Team select picks which when there are several), as the team's own Invite does. With no team
 * yet, the panel says so and links to creating one.
 */
function SuggestedPeople({ projectId }: { projectId: string }) {
  const utils = trpc.useUtils();
  const suggested = trpc.users.suggested.useQuery({ projectId });
  // the teams attached to a project are its owner's (teams attach only to their owner's projects)
  const teams = trpc.teams.ofProject.useQuery({ projectId, limit: MAX_PAGE_SIZE });
  const [teamId, setTeamId] = useState('');
  const [target, setTarget] = useState<string | null>(null);
  const invite = trpc.teams.invite.useMutation({ onSuccess: () => utils.teams.invalidate() });
  const teamItems = teams.data?.items ?? [];
  const chosen = teamItems.find((t) => t._id === teamId) ?? teamItems[0];

  return (
    <section className="card suggestions" aria-labelledby="suggested-heading">
      <h2 id="suggested-heading">Suggested people to invite</h2>
      {suggested.isPending ? (
        <Loading />
      ) : suggested.isError ? (
        <Notice kind="error">{errorMessage(suggested.error, M.requestFailed)}</Notice>
      ) : suggested.data.items.length === 0 ? (
        <p className="muted">{NO_SUGGESTIONS}</p>
      ) : (
        <>
          {teams.isPending ? (
            <Loading />
          ) : teams.isError ? (
            <Notice kind="error">{errorMessage(teams.error, M.teamsLoadFailed)}</Notice>
          ) : !chosen ? (
            <p className="muted">
              {NO_TEAM_TO_INVITE} <Link to={`/teams/new?projectId=${encodeURIComponent(projectId)}`}>Create a team</Link>
            </p>
          ) : (
            <div className="field invite-team">
              <label htmlFor="suggested-team">Team</label>
              <select
                id="suggested-team"
                value={chosen._id}
                onChange={(e) => {
                  setTeamId(e.target.value);
                  invite.reset();
                }}
              >
                {teamItems.map((t) => (
                  <option key={t._id} value={t._id}>
                    {t.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <SuggestedPeopleList
            people={suggested.data.items}
            invite={
              chosen && {
                busy: invite.isPending,
                // by username as a member (the id when the person has no username), as the team's Invite
                onInvite: (u) => {
                  setTarget(u._id);
                  invite.mutate({ id: chosen._id, data: u.username ? { username: u.username, role: 'member' } : { userId: u._id, role: 'member' } });
                },
                error: invite.isError && target ? { personId: target, message: errorMessage(invite.error, M.teamInviteFailed) } : null,
              }
            }
          />
          {invite.isSuccess && invite.data && chosen && <Notice kind="success">{`Invited ${personName(invite.data)} to ${chosen.name}.`}</Notice>}
        </>
      )}
    </section>
  );
}
