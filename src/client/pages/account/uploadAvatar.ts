import { M } from '../../../shared/messages';

/** A failed avatar upload, with the text a person reads (the server's message, else 'Upload failed'). */
export class AvatarUploadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AvatarUploadError';
  }
}

/**
 * POST /api/upload/avatar as multipart field `file` through XMLHttpRequest (spec section 7;
 * decisions.md "Uploads": XHR for its upload progress). Same origin: the session cookie and the
 * Origin header go along by themselves. Answers the stored picture's url (201 {url}); the server
 * sets it as the person's imageUrl.
 */
export function uploadAvatar(image: Blob, onProgress?: (fraction: number) => void, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new DOMException('Upload aborted', 'AbortError'));
      return;
    }
    const form = new FormData();
    form.append('file', image, 'avatar.jpg');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/upload/avatar');
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
      const b = body as { url?: unknown; error?: unknown; message?: unknown } | null;
      if (xhr.status >= 200 && xhr.status < 300) {
        if (typeof b?.url === 'string' && b.url) resolve(b.url);
        else reject(new AvatarUploadError(M.uploadFailed, xhr.status));
        return;
      }
      const message =
        typeof b?.error === 'string' && b.error
          ? b.error
          : typeof b?.message === 'string' && b.message
            ? b.message
            : xhr.responseText && !body && !xhr.responseText.trimStart().startsWith('<')
              ? xhr.responseText.trim().slice(0, 200)
              : M.uploadFailed;
      reject(new AvatarUploadError(message, xhr.status));
    };
    xhr.onerror = () => reject(new AvatarUploadError(M.uploadFailed));
    xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
