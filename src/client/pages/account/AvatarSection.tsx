import { useCallback, useEffect, useId, useRef, useState, type ChangeEvent } from 'react';
import { AVATAR_JPEG_QUALITY, AVATAR_RELOAD_MS, UPLOAD_MAX_BYTES } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { UserDto } from '../../../shared/schemas/user';
import { AvatarCropper, cropToJpeg, initialCrop, type SquareCrop } from '../../components/AvatarCropper';
import { IMAGE_ACCEPT } from '../../components/ImageUploadField';
import { Avatar } from '../../components/OwnerLink';
import { AvatarUploadError, uploadAvatar } from './uploadAvatar';

type Status = { kind: 'idle' } | { kind: 'uploading' } | { kind: 'saved' } | { kind: 'error'; message: string };

/** Loads a picked file as an image element (its natural size known), from an object URL. */
function loadImage(url: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => (img.naturalWidth > 0 && img.naturalHeight > 0 ? resolve(img) : reject(new Error('empty image')));
    img.onerror = () => reject(new Error('unreadable image'));
    img.src = url;
  });
}

/**
 * The profile image (spec sections 2, 4, 5): pick an image file, crop it 1:1 with a zoom of 1 to
 * 3, save it as a JPEG (quality 0.92) and upload it to POST /api/upload/avatar. Shows
 * 'Uploading...', then 'Saved!' and reloads the page 300 ms later (the navigation and every
 * cached picture then show the new one). Failures: 'Failed to save image' when the picture
 * cannot be made, else the server's message or 'Upload failed'.
 */
export function AvatarSection({ user }: { user: UserDto }) {
  const inputId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [image, setImage] = useState<HTMLImageElement | null>(null);
  const [crop, setCrop] = useState<SquareCrop>({ cx: 0, cy: 0, zoom: 1 });
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const urlRef = useRef<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);

  const forgetUrl = useCallback(() => {
    if (urlRef.current) URL.revokeObjectURL(urlRef.current);
    urlRef.current = null;
  }, []);
  // leaving the page drops the picked picture and stops an upload in flight
  useEffect(
    () => () => {
      forgetUrl();
      abortRef.current?.abort();
    },
    [forgetUrl],
  );

  async function onFile(e: ChangeEvent<HTMLInputElement>) {
    const file = e.currentTarget.files?.[0];
    if (!file) return;
    setStatus({ kind: 'idle' });
    if (!file.type.startsWith('image/')) {
      setStatus({ kind: 'error', message: M.imageTypeUnsupported });
      return;
    }
    if (file.size > UPLOAD_MAX_BYTES) {
      setStatus({ kind: 'error', message: M.imageTooLarge });
      return;
    }
    forgetUrl();
    const url = URL.createObjectURL(file);
    urlRef.current = url;
    try {
      const img = await loadImage(url);
      if (urlRef.current !== url) return; // another file was picked meanwhile
      setImage(img);
      setCrop(initialCrop({ width: img.naturalWidth, height: img.naturalHeight }));
    } catch {
      if (urlRef.current !== url) return;
      forgetUrl();
      setImage(null);
      setStatus({ kind: 'error', message: M.imageUnreadable });
    }
  }

  function cancel() {
    forgetUrl();
    setImage(null);
    setStatus({ kind: 'idle' });
    if (inputRef.current) inputRef.current.value = '';
  }

  async function save() {
    if (!image || status.kind === 'uploading' || status.kind === 'saved') return;
    setStatus({ kind: 'uploading' });
    let blob: Blob;
    try {
      blob = await cropToJpeg(image, crop, AVATAR_JPEG_QUALITY);
    } catch {
      setStatus({ kind: 'error', message: M.saveImageFailed });
      return;
    }
    const controller = new AbortController();
    abortRef.current = controller;
    try {
      await uploadAvatar(blob, undefined, controller.signal);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'AbortError') return;
      setStatus({ kind: 'error', message: err instanceof AvatarUploadError ? err.message : M.uploadFailed });
      return;
    } finally {
      if (abortRef.current === controller) abortRef.current = null;
    }
    setStatus({ kind: 'saved' });
    window.setTimeout(() => window.location.reload(), AVATAR_RELOAD_MS);
  }

  const busy = status.kind === 'uploading' || status.kind === 'saved';
  const current = user.avatarUrl || user.imageUrl;

  return (
    <section className="card avatar-section">
      <h2>Profile image</h2>
      <div className="avatar-current">
        {current ? <img className="avatar avatar-large" src={current} alt="Your current avatar" width={96} height={96} /> : <Avatar person={user} size={96} />}
        <div className="field">
          <div className="field-label">
            <label htmlFor={inputId}>Profile image</label>
            <span className="field-hint">JPEG, PNG, WebP or GIF; cropped to a square</span>
          </div>
          <input
            ref={inputRef}
            id={inputId}
            type="file"
            accept={IMAGE_ACCEPT}
            onChange={(e) => void onFile(e)}
            disabled={busy}
            aria-invalid={status.kind === 'error' ? true : undefined}
            aria-describedby={status.kind === 'error' ? errorId : undefined}
          />
        </div>
      </div>
      {image && (
        <div className="avatar-crop">
          <AvatarCropper image={image} crop={crop} onChange={setCrop} disabled={busy} />
          <div className="button-row">
            <button type="button" className="button" onClick={() => void save()} disabled={busy}>
              Save image
            </button>
            <button type="button" className="button button-secondary" onClick={cancel} disabled={busy}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <div aria-live="polite" role="status" className="avatar-status">
        {status.kind === 'uploading' && <span className="notice notice-info">{M.uploading}</span>}
        {status.kind === 'saved' && <span className="notice notice-success">{M.saved}</span>}
      </div>
      {status.kind === 'error' && (
        <p id={errorId} className="notice notice-error" role="alert">
          {status.message}
        </p>
      )}
    </section>
  );
}
