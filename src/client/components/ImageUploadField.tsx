import { useEffect, useId, useRef, useState, type ChangeEvent } from 'react';
import { UPLOAD_MAX_FILES } from '../../shared/constants';
import { M } from '../../shared/messages';
import type { ImageRef } from '../../shared/schemas/campaigns';
import type { CampaignImageKind } from '../../shared/schemas/uploads';
import { FieldLabel } from './Field';

export type UploadedImage = { url: string; alt: string };

export const IMAGE_ACCEPT = 'image/jpeg,image/png,image/webp,image/gif';

/** An upload that failed, with the text a person reads (the server's `error`, else 'Upload failed'). */
export class UploadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

/**
 * Sends campaign or project pictures to the REST door (POST /api/upload/campaign/multi?kind=)
 * as multipart `files`. XMLHttpRequest rather than fetch, because only it reports upload
 * progress. Same origin: the session cookie and the Origin header go along by themselves.
 * `onProgress` gets a fraction from 0 to 1. Aborting rejects with an AbortError.
 */
export function uploadCampaignImages(
  files: readonly File[],
  kind: CampaignImageKind,
  onProgress?: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<UploadedImage[]> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('Upload aborted', 'AbortError'));
      return;
    }
    const form = new FormData();
    for (const f of files) form.append('files', f, f.name);
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `/api/upload/campaign/multi?kind=${encodeURIComponent(kind)}`);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress?.(Math.min(1, e.loaded / e.total));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
      } catch {
        body = null;
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        const images = (body as { images?: unknown } | null)?.images;
        if (Array.isArray(images)) {
          onProgress?.(1);
          resolve(
            images.filter((i): i is UploadedImage => typeof i?.url === 'string').map((i) => ({ url: i.url, alt: typeof i.alt === 'string' ? i.alt : '' })),
          );
          return;
        }
        reject(new UploadError(M.uploadFailed, xhr.status));
        return;
      }
      const b = body as { error?: unknown; message?: unknown } | null;
      const message = typeof b?.error === 'string' && b.error ? b.error : typeof b?.message === 'string' && b.message ? b.message : M.uploadFailed;
      reject(new UploadError(message, xhr.status));
    };
    xhr.onerror = () => reject(new UploadError(M.uploadFailed));
    xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}

function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

interface ImageUploadFieldProps {
  /** The accessible name of the file input: exactly the <label> text ('Cover image', 'Gallery'). */
  label: string;
  hint?: string;
  kind: CampaignImageKind;
  /** Several files (gallery) or one (cover: a new upload replaces the old picture). */
  multiple: boolean;
  images: ImageRef[] | UploadedImage[];
  onChange(images: UploadedImage[]): void;
  /** Told when an upload starts and ends, so the form can block submission meanwhile. */
  onBusyChange(busy: boolean): void;
  /** The most pictures the field holds (the gallery's limit). */
  max?: number;
  maxMessage?: string;
  error?: string;
}

/**
 * A labelled file input that uploads at once, with a progress bar (role="progressbar") while it
 * runs, then previews with a Remove button each. The images themselves are the parent's state.
 */
export function ImageUploadField({ label, hint, kind, multiple, images, onChange, onBusyChange, max, maxMessage, error }: ImageUploadFieldProps) {
  const id = useId();
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  // the latest images and callbacks, for an upload that finishes after a re-render
  const latest = useRef({ images, onChange, onBusyChange });
  latest.current = { images, onChange, onBusyChange };

  // leaving the page stops an upload in flight and releases the form
  useEffect(
    () => () => {
      abortRef.current?.abort();
    },
    [],
  );

  async function onFiles(e: ChangeEvent<HTMLInputElement>) {
    const input = e.currentTarget;
    const picked = Array.from(input.files ?? []);
    // the same file may be picked again after a failure or a removal
    input.value = '';
    if (!picked.length) return;
    const files = multiple ? picked : picked.slice(0, 1);
    if (max !== undefined && multiple && latest.current.images.length + files.length > max) {
      setUploadError(maxMessage ?? M.tooManyGalleryImages);
      return;
    }
    setUploadError(null);
    abortRef.current?.abort();
    const controller = new AbortController();
    abortRef.current = controller;
    setProgress(0);
    latest.current.onBusyChange(true);
    const total = files.reduce((n, f) => n + f.size, 0) || 1;
    let done = 0;
    try {
      const uploaded: UploadedImage[] = [];
      // the server takes at most 10 files a request
      for (const batch of chunks(files, UPLOAD_MAX_FILES)) {
        const size = batch.reduce((n, f) => n + f.size, 0);
        const got = await uploadCampaignImages(batch, kind, (f) => setProgress((done + f * size) / total), controller.signal);
        done += size;
        uploaded.push(...got);
      }
      const current = latest.current.images.map((i) => ({ url: i.url, alt: i.alt ?? '' }));
      latest.current.onChange(multiple ? [...current, ...uploaded] : uploaded.slice(0, 1));
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      setUploadError(err instanceof UploadError ? err.message : M.uploadFailed);
    } finally {
      if (abortRef.current === controller) {
        abortRef.current = null;
        setProgress(null);
        latest.current.onBusyChange(false);
      }
    }
  }

  function remove(index: number) {
    onChange(images.filter((_, i) => i !== index).map((i) => ({ url: i.url, alt: i.alt ?? '' })));
  }

  const uploading = progress !== null;
  // names of the progress bar and the previews; never containing the field's label, so the label
  // names the file input alone
  const noun = kind === 'cover' ? 'cover' : 'pictures';
  const percent = Math.round((progress ?? 0) * 100);
  const shownError = uploadError ?? error;
  const errorId = shownError ? `${id}-error` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;

  return (
    <div className={`field upload-field upload-${kind}`}>
      <FieldLabel htmlFor={id} label={label} hint={hint} hintId={hintId} />
      <input
        id={id}
        type="file"
        accept={IMAGE_ACCEPT}
        multiple={multiple}
        onChange={(e) => void onFiles(e)}
        disabled={uploading}
        aria-invalid={shownError ? true : undefined}
        aria-describedby={[hintId, errorId].filter(Boolean).join(' ') || undefined}
      />
      {uploading && (
        <div className="upload-progress">
          <div className="progress" role="progressbar" aria-label={`Uploading ${noun}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent}>
            <div className="progress-bar" style={{ width: `${percent}%` }} />
          </div>
          <span className="upload-progress-text" aria-hidden="true">
            {M.uploading} {percent}%
          </span>
        </div>
      )}
      {shownError && (
        <p id={errorId} className="field-error" role="alert">
          {shownError}
        </p>
      )}
      {images.length > 0 && (
        <ul className={`upload-previews${kind === 'cover' ? ' upload-previews-cover' : ''}`} aria-label={`Chosen ${noun}`}>
          {images.map((img, i) => {
            const name = img.alt || (kind === 'cover' ? 'cover image' : `image ${i + 1}`);
            return (
              // biome-ignore lint/suspicious/noArrayIndexKey: one picture may be listed twice; its url and its place together are unique
              <li key={`${img.url}-${i}`} className="upload-preview">
                <img src={img.url} alt={name} />
                <button
                  type="button"
                  className="button button-small button-secondary"
                  onClick={() => remove(i)}
                  disabled={uploading}
                  aria-label={`Remove ${name}`}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
