import { Link, useNavigate, useParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import type { ProjectDto } from '../../../shared/schemas/projects';
import { UpdateProjectInput } from '../../../shared/schemas/projects';
import { useSession } from '../../auth/useSession';
import { ItemForm, type ItemFormValues } from '../../components/ItemForm';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { DISCARD_FORM } from '../../hooks/useLeaveGuard';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage, httpStatus } from '../../lib/errors';
import { trpc } from '../../trpc';

function toFormValues(p: ProjectDto): ItemFormValues {
  return {
    title: p.title,
    type: p.type,
    goalAmount: p.goalAmount > 0 ? String(p.goalAmount) : '',
    currency: p.currency,
    description: p.description,
    tags: p.tags,
    actionMode: p.actionMode,
    executionDate: '',
    targetType: p.targetType,
    cover: p.imageUrl ? { url: p.imageUrl, alt: '' } : null,
    images: p.images.map((i) => ({ url: i.url, alt: i.alt })),
  };
}

/** /projects/{id}/edit: the project form prefilled; the owner saves with projects.update. */
export default function EditProjectPage() {
  usePageTitle('Edit project');
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const { user } = useSession();
  const utils = trpc.useUtils();
  const project = trpc.projects.get.useQuery({ id }, { enabled: id !== '' });
  const update = trpc.projects.update.useMutation({
    onSuccess(saved) {
      utils.projects.get.setData({ id: saved._id }, saved);
      void utils.projects.list.reset();
      void navigate(`/projects/${encodeURIComponent(saved._id)}`);
    },
  });

  if (project.isPending) return <Loading />;
  if (project.isError) {
    // the spec has one load-failure text for the campaign and project forms
    const notFound = httpStatus(project.error) === 404;
    return (
      <section className="page page-form">
        <h1>{notFound ? M.notFound : 'Edit project'}</h1>
        {!notFound && <Notice kind="error">{errorMessage(project.error, M.loadCampaignFailed)}</Notice>}
        <p>
          <Link to="/projects">Back to projects</Link>
        </p>
      </section>
    );
  }
  const p = project.data;
  if (user && p.ownerId._id !== user._id) {
    return (
      <section className="page page-form">
        <h1>Edit project</h1>
        <Notice kind="error">{M.notOwner}</Notice>
        <p>
          <Link to={`/projects/${encodeURIComponent(p._id)}`}>Back to the project</Link>
        </p>
      </section>
    );
  }

  return (
    <section className="page page-form">
      <h1>Edit project</h1>
      <div className="card">
        <ItemForm
          // a fresh form for each loaded project
          key={p._id}
          keepKey={`project:${p._id}`}
          variant="project"
          schema={UpdateProjectInput}
          initial={toFormValues(p)}
          submitLabel="Save changes"
          busy={update.isPending || update.isSuccess}
          error={update.isError ? errorMessage(update.error, M.createCampaignFailed) : null}
          onSubmit={(data) => update.mutate({ id: p._id, data })}
          secondary={
            <Link className="button button-large button-ghost" to={`/projects/${encodeURIComponent(p._id)}`} state={DISCARD_FORM}>
              Cancel
            </Link>
          }
        />
      </div>
    </section>
  );
}
