import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import type { z } from 'zod';
import {
  ACTION_MODES,
  CATEGORIES,
  CURRENCIES,
  DEFAULT_ACTION_MODE,
  DEFAULT_CURRENCY,
  TARGET_TYPES,
  type ActionMode,
  type Category,
  type Currency,
} from '../../shared/constants';
import { M } from '../../shared/messages';
import { useSession } from '../auth/useSession';
import { useKeptState, useLeaveGuard } from '../hooks/useLeaveGuard';
import { useFormErrors, validate } from '../lib/forms';
import { Field, SelectField, TextAreaField } from './Field';
import { ImageUploadField, type UploadedImage } from './ImageUploadField';
import { categoryLabel } from './itemText';
import { Notice } from './Notice';
import { TagInput } from './TagInput';

export type TargetType = (typeof TARGET_TYPES)[number];

/** What the campaign and project forms hold, as the controls hold it (the goal as typed). */
export interface ItemFormValues {
  title: string;
  type: Category;
  goalAmount: string;
  currency: Currency;
  description: string;
  tags: string[];
  actionMode: ActionMode;
  /** yyyy-mm-dd or '' (campaigns only). */
  executionDate: string;
  /** Projects only. */
  targetType: TargetType;
  cover: UploadedImage | null;
  images: UploadedImage[];
}

export const EMPTY_ITEM_FORM: ItemFormValues = {
  title: '',
  type: 'other',
  goalAmount: '',
  currency: DEFAULT_CURRENCY,
  description: '',
  tags: [],
  actionMode: DEFAULT_ACTION_MODE,
  executionDate: '',
  targetType: 'amount',
  cover: null,
  images: [],
};

const MAX_GALLERY = 20;
const MODE_LABELS: Record<ActionMode, string> = { support: 'Support', donation: 'Donation', both: 'Both' };
/** Mode in a sentence (issue #33, plain words): what people can do on the page. */
const MODE_HINTS: Record<ActionMode, string> = {
  donation: 'people give money, once or monthly',
  support: 'people say “I’m in” to take part; no money',
  both: 'people can give money or say they are in',
};
const TARGET_LABELS: Record<TargetType, string> = { amount: 'Amount', supporters: 'Supporters' };

interface ItemFormProps<S extends z.ZodType> {
  variant: 'campaign' | 'project';
  /** The shared zod input of the call (CreateCampaignInput, CreateProjectInput, UpdateProjectInput). */
  schema: S;
  initial?: ItemFormValues;
  submitLabel: string;
  /** The call is running (or has succeeded and the page is moving on). */
  busy: boolean;
  /** The text of a failed call. */
  error?: string | null;
  onSubmit(data: z.output<S>): void;
  /** Extra controls next to the submit button (e.g. Cancel). */
  secondary?: ReactNode;
  /** Fields shown but not changeable (an edit once money has moved), each with its reason. */
  locked?: Partial<Record<'currency' | 'targetType', string>>;
  /**
   * A create form: a second submit button, "Save as draft", beside `submitLabel` ("Publish now"):
   * the data then carries `visibility` ('released' or 'draft').
   */
  draftOption?: boolean;
  /**
   * Where the form's values are kept while it is filled in (this tab's session storage: a page
   * left by mistake keeps them), e.g. `campaign:new` or `campaign:<id>`; leaving with changes or
   * an upload in progress asks first.
   */
  keepKey?: string;
}

/**
 * The campaign and project form (spec section 2 and 5): title, type, goal with currency,
 * description, tags, mode, execution date (campaigns) or target type (projects), a 16:9 cover
 * and a gallery uploaded at once with progress. Checked with the server's own zod schema.
 */
export function ItemForm<S extends z.ZodType>({
  variant,
  schema,
  initial = EMPTY_ITEM_FORM,
  submitLabel,
  busy,
  error,
  onSubmit,
  secondary,
  locked = {},
  draftOption = false,
  keepKey,
}: ItemFormProps<S>) {
  const { user } = useSession();
  const [v, setV, forget] = useKeptState<ItemFormValues>(keepKey, initial);
  // sent and accepted by the form's checks: the page may move on (a failed call lets the guard back)
  const [sent, setSent] = useState(false);
  useEffect(() => {
    if (error) setSent(false);
  }, [error]);
  const { formRef, errors, show: setErrors } = useFormErrors();
  const [coverBusy, setCoverBusy] = useState(false);
  const [galleryBusy, setGalleryBusy] = useState(false);
  const uploading = coverBusy || galleryBusy;
  const changed = JSON.stringify(v) !== JSON.stringify(initial);
  const leaveWarning = useLeaveGuard((changed || uploading) && !sent, uploading, forget);
  // which submit button was used (Enter in a field submits with the first: publish)
  const intent = useRef<'released' | 'draft'>('released');

  const set = <K extends keyof ItemFormValues>(key: K, value: ItemFormValues[K]) => setV((prev) => ({ ...prev, [key]: value }));

  const categories = CATEGORIES.filter((c) => c !== 'adult' || user?.hasAdultAccess || initial.type === 'adult');

  function handleSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy || uploading) return;
    const values: Record<string, unknown> = {
      title: v.title,
      type: v.type,
      goalAmount: v.goalAmount,
      currency: v.currency,
      description: v.description,
      tags: v.tags,
      actionMode: v.actionMode,
      imageUrl: v.cover?.url ?? null,
      images: v.images,
    };
    if (variant === 'campaign') values.executionDate = v.executionDate || null;
    else values.targetType = v.targetType;
    if (draftOption) values.visibility = intent.current;
    intent.current = 'released';
    const checked = validate(schema, values);
    setErrors(checked.errors);
    if (checked.ok) {
      setSent(true);
      forget();
      onSubmit(checked.data);
    }
  }

  const supportersGoal = variant === 'project' && v.targetType === 'supporters';

  return (
    <>
      {/* outside the form: the dialog's own submit must not bubble into this form's */}
      {leaveWarning}
      <form ref={formRef} className="form item-form" onSubmit={handleSubmit} noValidate>
        <Field
          label="Title"
          name="title"
          value={v.title}
          onChange={(e) => set('title', e.target.value)}
          error={errors.title}
          required
          maxLength={200}
          autoComplete="off"
        />
        <div className="form-row">
          <SelectField label="Type" name="type" value={v.type} onChange={(e) => set('type', e.target.value as Category)} error={errors.type}>
            {categories.map((c) => (
              <option key={c} value={c}>
                {categoryLabel(c)}
              </option>
            ))}
          </SelectField>
          <SelectField
            label="Mode"
            name="actionMode"
            hint={MODE_HINTS[v.actionMode]}
            value={v.actionMode}
            onChange={(e) => set('actionMode', e.target.value as ActionMode)}
            error={errors.actionMode}
          >
            {ACTION_MODES.map((m) => (
              <option key={m} value={m}>
                {MODE_LABELS[m]}
              </option>
            ))}
          </SelectField>
        </div>
        {variant === 'project' && (
          <SelectField
            label="Target type"
            name="targetType"
            hint={locked.targetType ?? 'what the goal counts'}
            disabled={locked.targetType !== undefined}
            value={v.targetType}
            onChange={(e) => set('targetType', e.target.value as TargetType)}
            error={errors.targetType}
          >
            {TARGET_TYPES.map((t) => (
              <option key={t} value={t}>
                {TARGET_LABELS[t]}
              </option>
            ))}
          </SelectField>
        )}
        <div className="form-row">
          <Field
            label="Goal"
            name="goalAmount"
            type="number"
            inputMode="numeric"
            min={0}
            step={1}
            hint={supportersGoal ? 'number of supporters, optional' : 'optional'}
            placeholder="0"
            value={v.goalAmount}
            onChange={(e) => set('goalAmount', e.target.value)}
            error={errors.goalAmount}
          />
          <SelectField
            label="Currency"
            name="currency"
            hint={locked.currency}
            disabled={locked.currency !== undefined}
            value={v.currency}
            onChange={(e) => set('currency', e.target.value as Currency)}
            error={errors.currency}
          >
            {CURRENCIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </SelectField>
        </div>
        {variant === 'campaign' && (
          <Field
            label="Execution date"
            name="executionDate"
            type="date"
            min="1000-01-01"
            max="9999-12-31"
            hint="optional: the day it takes place. Supporters are reminded before it; after it the campaign takes no more gifts or supporters"
            value={v.executionDate}
            onChange={(e) => set('executionDate', e.target.value)}
            error={errors.executionDate}
          />
        )}
        <TextAreaField
          label="Description"
          name="description"
          rows={6}
          value={v.description}
          onChange={(e) => set('description', e.target.value)}
          error={errors.description}
        />
        <TagInput label="Tags" hint="Enter or comma adds a tag" tags={v.tags} onChange={(tags) => set('tags', tags)} error={errors.tags} />
        <ImageUploadField
          label="Cover image"
          hint="16:9, cropped to fit"
          kind="cover"
          multiple={false}
          images={v.cover ? [v.cover] : []}
          onChange={(imgs) => set('cover', imgs[0] ?? null)}
          onBusyChange={setCoverBusy}
          error={errors.imageUrl}
        />
        <ImageUploadField
          label="Gallery"
          hint={`up to ${MAX_GALLERY} images`}
          kind="gallery"
          multiple
          images={v.images}
          onChange={(imgs) => set('images', imgs)}
          onBusyChange={setGalleryBusy}
          max={MAX_GALLERY}
          maxMessage={M.tooManyGalleryImages}
          error={errors.images}
        />
        <Notice kind="error">{errors.form}</Notice>
        <Notice kind="error">{error}</Notice>
        {draftOption && (
          <p id="item-form-draft-hint" className="field-hint">
            A draft is seen only by you until you release it, now or at a time you choose.
          </p>
        )}
        <div className="form-actions">
          <button type="submit" className="button button-large" disabled={uploading || busy}>
            {uploading ? M.uploadingImages : submitLabel}
          </button>
          {draftOption && (
            <button
              type="submit"
              className="button button-large button-secondary"
              disabled={uploading || busy}
              aria-describedby="item-form-draft-hint"
              onClick={() => {
                intent.current = 'draft';
              }}
            >
              {M.saveAsDraft}
            </button>
          )}
          {secondary}
        </div>
      </form>
    </>
  );
}
