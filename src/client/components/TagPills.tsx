import { Link } from 'react-router-dom';

/** Tags as pills, each a link to the list searched for it (`${basePath}?q=tag`). */
export function TagPills({ tags, basePath }: { tags: string[]; basePath: string }) {
  if (!tags.length) return null;
  return (
    <ul className="tag-pills" aria-label="Tags">
      {tags.map((t) => (
        <li key={t}>
          <Link className="tag-pill" to={`${basePath}?q=${encodeURIComponent(t)}`}>
            {t}
          </Link>
        </li>
      ))}
    </ul>
  );
}
