import { useEffect, useId, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

export const CROP_ZOOM_MIN = 1;
export const CROP_ZOOM_MAX = 3;

/** A square crop of an image: its centre in the image's own pixels, and the zoom (1 to 3). */
export interface SquareCrop {
  cx: number;
  cy: number;
  zoom: number;
}

interface Size {
  width: number;
  height: number;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The side of the square in image pixels: the whole short side at zoom 1, a third of it at zoom 3. */
export function cropSide(image: Size, zoom: number): number {
  return Math.min(image.width, image.height) / clamp(zoom, CROP_ZOOM_MIN, CROP_ZOOM_MAX);
}

/** Keeps the square inside the image. */
export function clampCrop(image: Size, crop: SquareCrop): SquareCrop {
  const zoom = clamp(crop.zoom, CROP_ZOOM_MIN, CROP_ZOOM_MAX);
  const half = cropSide(image, zoom) / 2;
  return { zoom, cx: clamp(crop.cx, half, image.width - half), cy: clamp(crop.cy, half, image.height - half) };
}

/** The centred square at zoom 1. */
export function initialCrop(image: Size): SquareCrop {
  return { cx: image.width / 2, cy: image.height / 2, zoom: 1 };
}

/** The source rectangle of the crop, in image pixels. */
export function cropArea(image: Size, crop: SquareCrop): { x: number; y: number; size: number } {
  const c = clampCrop(image, crop);
  const size = cropSide(image, c.zoom);
  return { x: c.cx - size / 2, y: c.cy - size / 2, size };
}

/**
 * Draws the crop on a canvas and encodes it as JPEG (quality 0.92 by default). The square is at
 * most `maxSide` pixels; transparent parts of the source become white. Rejects when the browser
 * cannot encode the canvas.
 */
export function cropToJpeg(image: HTMLImageElement, crop: SquareCrop, quality: number, maxSide = 512): Promise<Blob> {
  const size = { width: image.naturalWidth, height: image.naturalHeight };
  const area = cropArea(size, crop);
  const side = Math.max(1, Math.min(maxSide, Math.round(area.size)));
  const canvas = document.createElement('canvas');
  canvas.width = side;
  canvas.height = side;
  const ctx = canvas.getContext('2d');
  if (!ctx) return Promise.reject(new Error('Canvas is not available'));
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, side, side);
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(image, area.x, area.y, area.size, area.size, 0, 0, side, side);
  return new Promise((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('Could not encode the image'))), 'image/jpeg', quality);
  });
}

interface AvatarCropperProps {
  /** A loaded image (its natural size is known). */
  image: HTMLImageElement;
  crop: SquareCrop;
  onChange(crop: SquareCrop): void;
  disabled?: boolean;
}

const KEY_STEP_PX = 10;

/**
 * A 1:1 cropper: the picture under a square frame with a round guide. Drag it (mouse, pen or
 * touch) or use the arrow keys on the frame to move it; the 'Zoom' slider goes from 1 to 3.
 * No styles are injected: the frame and picture are laid out by styles.css, the picture's
 * position is set through the style object (CSSOM), which the CSP allows.
 */
export function AvatarCropper({ image, crop, onChange, disabled = false }: AvatarCropperProps) {
  const zoomId = useId();
  const hintId = useId();
  const frameRef = useRef<HTMLDivElement>(null);
  const [frame, setFrame] = useState(280);
  const drag = useRef<{ id: number; x: number; y: number; start: SquareCrop } | null>(null);
  const size = { width: image.naturalWidth, height: image.naturalHeight };
  const c = clampCrop(size, crop);
  const side = cropSide(size, c.zoom);
  // CSS pixels per image pixel
  const scale = frame / side;

  // the frame is responsive: measure it
  useEffect(() => {
    const el = frameRef.current;
    if (!el) return;
    const measure = () => setFrame(el.clientWidth || 280);
    measure();
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  function moveBy(dxCss: number, dyCss: number, from: SquareCrop = c) {
    onChange(clampCrop(size, { ...from, cx: from.cx - dxCss / scale, cy: from.cy - dyCss / scale }));
  }

  function onPointerDown(e: PointerEvent<HTMLDivElement>) {
    if (disabled || (e.pointerType === 'mouse' && e.button !== 0)) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { id: e.pointerId, x: e.clientX, y: e.clientY, start: c };
    e.currentTarget.focus();
  }
  function onPointerMove(e: PointerEvent<HTMLDivElement>) {
    const d = drag.current;
    if (!d || d.id !== e.pointerId) return;
    moveBy(e.clientX - d.x, e.clientY - d.y, d.start);
  }
  function onPointerUp(e: PointerEvent<HTMLDivElement>) {
    if (drag.current?.id === e.pointerId) drag.current = null;
  }
  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    if (disabled) return;
    const moves: Record<string, [number, number]> = {
      ArrowLeft: [-KEY_STEP_PX, 0],
      ArrowRight: [KEY_STEP_PX, 0],
      ArrowUp: [0, -KEY_STEP_PX],
      ArrowDown: [0, KEY_STEP_PX],
    };
    const m = moves[e.key];
    if (m) {
      e.preventDefault();
      moveBy(m[0], m[1]);
    } else if (e.key === '+' || e.key === '=') {
      e.preventDefault();
      onChange(clampCrop(size, { ...c, zoom: c.zoom + 0.1 }));
    } else if (e.key === '-') {
      e.preventDefault();
      onChange(clampCrop(size, { ...c, zoom: c.zoom - 0.1 }));
    }
  }

  return (
    <div className="cropper">
      {/* biome-ignore lint/a11y/useSemanticElements: one draggable control with its description, not a set of form fields */}
      <div
        ref={frameRef}
        className={`cropper-frame${disabled ? ' cropper-disabled' : ''}`}
        role="group"
        aria-label="Crop area"
        aria-describedby={hintId}
        tabIndex={disabled ? -1 : 0}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
      >
        <img
          className="cropper-image"
          src={image.src}
          alt="Crop preview"
          draggable={false}
          style={{
            width: size.width * scale,
            height: size.height * scale,
            transform: `translate(${frame / 2 - c.cx * scale}px, ${frame / 2 - c.cy * scale}px)`,
          }}
        />
        <div className="cropper-guide" aria-hidden="true" />
      </div>
      <p id={hintId} className="field-hint cropper-hint">
        Drag the picture or use the arrow keys to move it.
      </p>
      <div className="field cropper-zoom">
        <div className="field-label">
          <label htmlFor={zoomId}>Zoom</label>
          <span className="field-hint" aria-hidden="true">
            {c.zoom.toFixed(1)}×
          </span>
        </div>
        <input
          id={zoomId}
          type="range"
          min={CROP_ZOOM_MIN}
          max={CROP_ZOOM_MAX}
          step={0.01}
          value={c.zoom}
          disabled={disabled}
          aria-valuetext={`${c.zoom.toFixed(1)} times`}
          onChange={(e) => onChange(clampCrop(size, { ...c, zoom: Number(e.target.value) }))}
        />
      </div>
    </div>
  );
}
