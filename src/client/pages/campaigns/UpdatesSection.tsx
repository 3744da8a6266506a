import { useId, useRef, useState, type FormEvent } from 'react';
import { M } from '../../../shared/messages';
import type { UpdateAudience, UpdateDto } from '../../../shared/schemas/updates';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field, TextAreaField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ImageUploadField, type UploadedImage } from '../../components/ImageUploadField';
import { Loading } from '../../components/Loading';
import { Notice } from '../../components/Notice';
import { formatDateTime } from '../../lib/dates';
import { errorMessage, httpStatus } from '../../lib/errors';
import { type FieldErrors, lazySchema, useFormErrors, validateLazy } from '../../lib/forms';
import { trpc } from '../../trpc';
import { MoreButton, useFocusFirstNew } from './comments/MoreButton';

/** The most images an update holds (UPDATE_LIMITS.images of the schema module, which loads with the form). */
const MAX_IMAGES = 10;

const createSchema = lazySchema(() => import('../../../shared/schemas/updates').then((m) => m.CreateUpdateInput));

const nextCursor = (last: { nextCursor: string | null }) => last.nextCursor ?? undefined;

/** A server's refusal on the field it is about (the texts are shared/messages.ts's), else on the form. */
function fieldOf(message: string): FieldErrors {
  if (message === M.updateTitleRequired || message === M.updateTitleTooLong) return { title: message };
  if (message === M.updateBodyRequired || message === M.updateBodyTooLong) return { body: message };
  if (message === M.updateTooManyImages || message === M.imageNotUploaded) return { images: message };
  if (message === M.updateAudienceInvalid) return { audience: message };
  return { form: message };
}

/**
 * The Updates section of /campaigns/{id} (issue #33 item 5): the campaign's updates, newest first,
 * a page at a time; a backers-only update the viewer may not read shows as a locked teaser (its
 * title, its date and "For backers only"). The owner posts (audience and images), edits and
 * deletes. Hidden where the campaign's updates are not the viewer's to see (a draft's circle).
 */
export function UpdatesSection({ campaignId }: { campaignId: string }) {
  const list = trpc.updates.list.useInfiniteQuery({ campaignId }, { getNextPageParam: nextCursor, retry: (n, err) => httpStatus(err) !== 404 && n < 2 });
  const utils = trpc.useUtils();
  const refresh = () => utils.updates.list.invalidate({ campaignId });
  const listRef = useRef<HTMLOListElement>(null);
  const [status, setStatus] = useState('');
  const [composing, setComposing] = useState(false);
  const newButtonRef = useRef<HTMLButtonElement>(null);
  const items: UpdateDto[] = list.data?.pages.flatMap((p) => p.items) ?? [];
  const focus = useFocusFirstNew(listRef, items.length, list.hasNextPage);
  const canPost = list.data?.pages[0]?.canPost ?? false;

  if (list.isError && httpStatus(list.error) === 404) return null;

  return (
    <section className="updates" aria-labelledby="updates-heading">
      <div className="updates-head">
        <h2 id="updates-heading">{M.updatesHeading}</h2>
        {canPost && !composing && (
          <button
            ref={newButtonRef}
            type="button"
            className="button button-small"
            onClick={() => {
              setStatus('');
              setComposing(true);
            }}
          >
            {M.updateNew}
          </button>
        )}
      </div>
      <div className="updates-status" role="status" aria-live="polite">
        {status}
      </div>
      {canPost && composing && (
        <UpdateForm
          campaignId={campaignId}
          onDone={(message) => {
            setComposing(false);
            if (message) setStatus(message);
            void refresh();
            requestAnimationFrame(() => newButtonRef.current?.focus());
          }}
        />
      )}
      {list.isPending ? (
        <Loading />
      ) : list.isError ? (
        <p className="muted">
          {M.updatesLoadFailed}{' '}
          <button type="button" className="button button-small button-ghost" onClick={() => void list.refetch()}>
            Try again
          </button>
        </p>
      ) : items.length === 0 ? (
        <div className="updates-empty">
          <p className="muted">
            <strong>{M.updatesEmpty}</strong>
          </p>
          <p className="muted">{canPost ? M.updatesEmptyOwnerHint : M.updatesEmptyHint}</p>
        </div>
      ) : (
        <ol className="update-list" ref={listRef}>
          {items.map((u) => (
            <li key={u._id} id={`update-${u._id}`}>
              <UpdateItem
                update={u}
                campaignId={campaignId}
                owner={canPost}
                onChanged={(message) => {
                  setStatus(message);
                  void refresh();
                }}
              />
            </li>
          ))}
        </ol>
      )}
      {list.hasNextPage && (
        <MoreButton
          className="updates-more"
          label={M.loadMoreUpdates}
          busy={list.isFetchingNextPage}
          failed={list.isFetchNextPageError}
          onMore={() => {
            focus.mark(items.length);
            void list.fetchNextPage();
          }}
        />
      )}
    </section>
  );
}

/** One update: readable, or a locked teaser; Edit and Delete for the owner. */
function UpdateItem({ update: u, campaignId, owner, onChanged }: { update: UpdateDto; campaignId: string; owner: boolean; onChanged(message: string): void }) {
  const [mode, setMode] = useState<'view' | 'edit'>('view');
  const [confirming, setConfirming] = useState(false);
  const headingId = useId();
  const editRef = useRef<HTMLButtonElement>(null);
  const remove = trpc.updates.delete.useMutation();

  if (mode === 'edit') {
    return (
      <article className="update card" aria-labelledby={headingId}>
        <h3 id={headingId} className="visually-hidden">
          {M.updateEdit}: {u.title}
        </h3>
        <UpdateForm
          campaignId={campaignId}
          editing={u}
          onDone={(message) => {
            setMode('view');
            if (message) onChanged(message);
            requestAnimationFrame(() => editRef.current?.focus());
          }}
        />
      </article>
    );
  }

  return (
    <article className={`update card${u.locked ? ' update-locked' : ''}`} aria-labelledby={headingId}>
      <header className="update-header">
        <h3 id={headingId}>{u.title}</h3>
        <p className="update-meta muted">
          <time dateTime={new Date(u.createdAt).toISOString()}>{formatDateTime(u.createdAt)}</time>
          {u.editedAt && <span> · {M.updateEdited}</span>}
          {u.audience === 'backers' && !u.locked && <span className="update-badge">{M.updateBackersBadge}</span>}
        </p>
      </header>
      {u.locked ? (
        <p className="update-teaser">
          <span className="update-lock">
            <Icon name="lock" size={18} />
          </span>
          <strong>{M.updateForBackersOnly}</strong> <span className="muted">{M.updateLockedHint}</span>
        </p>
      ) : (
        <>
          <p className="prewrap update-body">{u.body}</p>
          {u.images.length > 0 && (
            <ul className="update-images" aria-label={`Images of ${u.title}`}>
              {u.images.map((img) => (
                <li key={img.url}>
                  <img src={img.url} alt={img.alt} loading="lazy" />
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      {owner && (
        <div className="button-row update-actions">
          <button
            ref={editRef}
            type="button"
            className="button button-small button-secondary"
            aria-label={`${M.updateEdit} “${u.title}”`}
            onClick={() => setMode('edit')}
          >
            {M.updateEdit}
          </button>
          <button type="button" className="button button-small button-danger" aria-label={`${M.updateDelete} “${u.title}”`} onClick={() => setConfirming(true)}>
            {M.updateDelete}
          </button>
        </div>
      )}
      {confirming && (
        <ConfirmDialog
          title={M.updateDelete}
          message={M.updateDeleteConfirm}
          confirmLabel={M.updateDelete}
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error, M.requestFailed) : null}
          onConfirm={() =>
            remove.mutate(
              { campaignId, updateId: u._id },
              {
                onSuccess: () => {
                  setConfirming(false);
                  onChanged(M.updateDeleted);
                },
              },
            )
          }
          onClose={() => setConfirming(false)}
          fallbackFocus={() => document.getElementById('updates-heading')}
        />
      )}
    </article>
  );
}

/** Posting a new update (with its audience and images) or editing one; `onDone` with the text to announce, or '' on Cancel. */
function UpdateForm({ campaignId, editing, onDone }: { campaignId: string; editing?: UpdateDto; onDone(message: string): void }) {
  const [title, setTitle] = useState(editing?.title ?? '');
  const [body, setBody] = useState(editing?.body ?? '');
  const [audience, setAudience] = useState<UpdateAudience>(editing?.audience ?? 'public');
  const [images, setImages] = useState<UploadedImage[]>(editing?.images ?? []);
  const [uploading, setUploading] = useState(false);
  const { formRef, errors, show } = useFormErrors();
  const create = trpc.updates.create.useMutation();
  const edit = trpc.updates.update.useMutation();
  const busy = create.isPending || edit.isPending || uploading;
  const audienceName = useId();
  const legendId = useId();
  const audienceErrorId = useId();

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const values = { title, body, audience, images };
    const checked = await validateLazy(createSchema, values);
    if (!checked) return show({ form: M.requestFailed });
    if (!checked.ok) return show(checked.errors);
    show({});
    const failed = (err: unknown) => show(fieldOf(errorMessage(err, M.requestFailed)));
    if (editing) {
      edit.mutate({ campaignId, updateId: editing._id, data: checked.data }, { onSuccess: () => onDone(M.updateSaved), onError: failed });
    } else {
      create.mutate(
        { campaignId, data: checked.data },
        {
          onSuccess: (posted) =>
            onDone(
              `${M.updatePosted} ${posted.emailed > 0 ? `${M.updateEmailedTo} ${posted.emailed} ${posted.emailed === 1 ? 'person' : 'people'}.` : M.updateEmailedNobody}`,
            ),
          onError: failed,
        },
      );
    }
  }

  return (
    <form
      ref={formRef}
      className="update-form card"
      noValidate
      onSubmit={(e) => void submit(e)}
      aria-label={editing ? `${M.updateEdit}: ${editing.title}` : M.updateNew}
    >
      {!editing && <h3>{M.updateNew}</h3>}
      <Field label={M.updateTitleLabel} name="title" required maxLength={120} value={title} onChange={(e) => setTitle(e.target.value)} error={errors.title} />
      <TextAreaField label={M.updateBodyLabel} name="body" required rows={6} value={body} onChange={(e) => setBody(e.target.value)} error={errors.body} />
      <fieldset className="update-audience" aria-describedby={errors.audience ? audienceErrorId : undefined}>
        <legend id={legendId}>{M.updateAudienceLegend}</legend>
        {(['public', 'backers'] as const).map((a) => (
          <label key={a} className="update-audience-option">
            <input type="radio" name={audienceName} value={a} checked={audience === a} onChange={() => setAudience(a)} />
            <span>{a === 'public' ? M.updateAudiencePublic : M.updateAudienceBackers}</span>
          </label>
        ))}
        <div className="field-error-slot" aria-live="polite">
          {errors.audience && (
            <p id={audienceErrorId} className="field-error">
              {errors.audience}
            </p>
          )}
        </div>
      </fieldset>
      <ImageUploadField
        label={M.updateImagesLabel}
        kind="gallery"
        multiple
        images={images}
        onChange={setImages}
        onBusyChange={setUploading}
        max={MAX_IMAGES}
        maxMessage={M.updateTooManyImages}
        error={errors.images}
      />
      <Notice kind="error">{errors.form}</Notice>
      <div className="button-row">
        <button type="submit" className="button" aria-busy={busy || undefined} disabled={create.isPending || edit.isPending}>
          {create.isPending || edit.isPending ? M.updatePosting : editing ? M.updateSave : M.updatePost}
        </button>
        <button type="button" className="button button-secondary" onClick={() => onDone('')}>
          {M.updateCancel}
        </button>
      </div>
    </form>
  );
}
