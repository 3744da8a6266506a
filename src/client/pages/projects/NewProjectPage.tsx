import { useNavigate } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { CreateProjectInput } from '../../../shared/schemas/projects';
import { ItemForm } from '../../components/ItemForm';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { trpc } from '../../trpc';
import { withNotice } from '../campaigns/pageNotice';

/** /projects/new: the campaign form's fields plus target type; on success the new project's page. */
export default function NewProjectPage() {
  usePageTitle('New project');
  const navigate = useNavigate();
  const utils = trpc.useUtils();
  const create = trpc.projects.create.useMutation({
    onSuccess(project) {
      utils.projects.get.setData({ id: project._id }, project);
      void utils.projects.list.reset();
      void navigate(`/projects/${encodeURIComponent(project._id)}`, { state: withNotice(M.projectCreated) });
    },
  });
  return (
    <section className="page page-form">
      <h1>New project</h1>
      <div className="card">
        <ItemForm
          variant="project"
          keepKey="project:new"
          schema={CreateProjectInput}
          submitLabel={M.publishNow}
          draftOption
          busy={create.isPending || create.isSuccess}
          // the spec has one default text for creating and editing campaigns and projects
          error={create.isError ? errorMessage(create.error, M.createCampaignFailed) : null}
          onSubmit={(data) => create.mutate(data)}
        />
      </div>
    </section>
  );
}
