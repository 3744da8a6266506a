import { useState } from 'react';
import { ImageOverlay } from './ImageOverlay';

export interface GalleryImage {
  url: string;
  alt?: string;
}

/**
 * A campaign's or project's pictures as a grid (region "Gallery"); a click enlarges one in the
 * overlay. Renders nothing without pictures.
 */
export function ImageGallery({ images, title }: { images: GalleryImage[]; title: string }) {
  const [open, setOpen] = useState<{ src: string; alt: string } | null>(null);
  if (!images.length) return null;
  return (
    <section className="gallery" aria-labelledby="gallery-heading">
      <h2 id="gallery-heading">Gallery</h2>
      <ul className="gallery-grid">
        {images.map((img, i) => {
          const alt = img.alt || `${title}, picture ${i + 1}`;
          return (
            // biome-ignore lint/suspicious/noArrayIndexKey: one picture may be listed twice; its url and its place together are unique
            <li key={`${img.url}-${i}`}>
              <button type="button" className="image-button" onClick={() => setOpen({ src: img.url, alt })} aria-label={`Enlarge ${alt}`}>
                <img src={img.url} alt={alt} loading="lazy" />
              </button>
            </li>
          );
        })}
      </ul>
      {open && <ImageOverlay src={open.src} alt={open.alt} onClose={() => setOpen(null)} />}
    </section>
  );
}
