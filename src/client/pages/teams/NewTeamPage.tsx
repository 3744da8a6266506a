import { useState, type FormEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { M } from '../../../shared/messages';
import { CreateTeamInput } from '../../../shared/schemas/teams';
import { Field, SelectField, TextAreaField } from '../../components/Field';
import { Notice } from '../../components/Notice';
import { TagInput } from '../../components/TagInput';
import { usePageTitle } from '../../hooks/usePageTitle';
import { errorMessage } from '../../lib/errors';
import { useFormErrors, validate } from '../../lib/forms';
import { trpc } from '../../trpc';
import { ProjectOptions, teamPath, useMyProjects } from './teamParts';

const NOT_OWN_PROJECT = 'A team can only be assigned to a project you own.';

/** Back where the person came from; straight here (no history of ours) goes to the project or /teams. */
function useGoBack(fallback: string) {
  const navigate = useNavigate();
  return () => {
    const idx = (window.history.state as { idx?: number } | null)?.idx ?? 0;
    if (idx > 0) void navigate(-1);
    else void navigate(fallback);
  };
}

/**
 * /teams/new (?projectId= prefills the project): name (trimmed, required), the project to assign
 * it to (one of mine, or None), description and looking-for tags. On success the new team's
 * manage page.
 */
export default function NewTeamPage() {
  usePageTitle('New team');
  const [params] = useSearchParams();
  const preset = (params.get('projectId') ?? '').trim();
  const navigate = useNavigate();
  const goBack = useGoBack(preset ? `/projects/${encodeURIComponent(preset)}` : '/teams');
  const utils = trpc.useUtils();
  const projects = useMyProjects(preset || null);

  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [tags, setTags] = useState<string[]>([]);
  // null: not chosen yet, so the ?projectId= (when it is one of mine) is the choice
  const [chosen, setChosen] = useState<string | null>(null);
  const { formRef, errors, show: setErrors } = useFormErrors();

  const projectId = chosen ?? (projects.has(preset) ? preset : '');
  const presetNotMine = Boolean(preset) && chosen === null && !projects.isPending && !projects.has(preset);

  const create = trpc.teams.create.useMutation({
    onSuccess(team) {
      void utils.teams.invalidate();
      utils.teams.get.setData({ id: team._id }, team);
      void navigate(teamPath(team._id, '/manage'));
    },
  });
  const busy = create.isPending || create.isSuccess;

  function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    const checked = validate(CreateTeamInput, { name, description, tags, projectId: projectId || null });
    setErrors(checked.errors);
    if (!checked.ok) return;
    create.mutate(checked.data);
  }

  return (
    <section className="page page-form">
      <h1>New team</h1>
      <div className="card">
        <form ref={formRef} className="form team-form" onSubmit={onSubmit} noValidate>
          <Field
            label="Name"
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={errors.name}
            maxLength={120}
            autoComplete="off"
            required
          />
          <SelectField
            label="Assign to project"
            hint={projects.isPending ? 'loading your projects…' : 'optional'}
            value={projectId}
            onChange={(e) => setChosen(e.target.value)}
            error={errors.projectId}
            disabled={busy}
          >
            <ProjectOptions options={projects.options} />
          </SelectField>
          {presetNotMine && <p className="muted field-note">{NOT_OWN_PROJECT}</p>}
          {projects.error && <Notice kind="error">{errorMessage(projects.error, M.requestFailed)}</Notice>}
          <TextAreaField
            label="Description"
            hint="optional"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            error={errors.description}
            rows={5}
          />
          <TagInput label="Looking for" hint="skills or roles, Enter or comma adds" tags={tags} onChange={setTags} error={errors.tags} />
          <Notice kind="error">{create.isError ? errorMessage(create.error, M.teamCreateFailed) : errors.form}</Notice>
          <div className="form-actions">
            <button type="button" className="button button-secondary button-large" onClick={goBack} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="button button-large" disabled={busy}>
              Create Team
            </button>
          </div>
        </form>
      </div>
    </section>
  );
}
