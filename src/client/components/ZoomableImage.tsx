import { useState } from 'react';
import { ImageOverlay } from './ImageOverlay';

interface ZoomableImageProps {
  src: string;
  /** The picture's text alternative; the button is named 'Enlarge <alt>'. */
  alt: string;
  className?: string;
  imgClassName?: string;
  width?: number;
  height?: number;
}

/** A picture that opens enlarged in the zoom overlay when clicked (Escape or a click closes it). */
export function ZoomableImage({ src, alt, className, imgClassName, width, height }: ZoomableImageProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={`image-button zoomable${className ? ` ${className}` : ''}`} onClick={() => setOpen(true)} aria-label={`Enlarge ${alt}`}>
        <img className={imgClassName} src={src} alt={alt} width={width} height={height} loading="lazy" />
      </button>
      {open && <ImageOverlay src={src} alt={alt} onClose={() => setOpen(false)} />}
    </>
  );
}
