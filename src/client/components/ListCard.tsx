import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';

export interface CardFact {
  /** The table's column name ('Raised'). */
  label: string;
  value: ReactNode;
  /** Takes the card's whole width (long texts, tag lists). */
  wide?: boolean;
  /** A figure (tabular digits). */
  num?: boolean;
}

/**
 * One row of a list table as a card, for screens narrower than 640 px: the thumbnail and the
 * title (a heading linking to the item), then each fact under its column's name, then the row's
 * actions. `headingLevel` keeps the page's outline (2 under the page's h1, 3 under a section's h2).
 */
export function ListCard({
  href,
  title,
  thumb,
  facts,
  actions,
  headingLevel = 2,
}: {
  href: string;
  title: string;
  thumb?: ReactNode;
  facts: CardFact[];
  actions?: ReactNode;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <li className="list-card">
      <div className="list-card-head">
        {thumb}
        <Heading className="list-card-title">
          <Link to={href}>{title}</Link>
        </Heading>
      </div>
      <dl className="list-card-facts">
        {facts.map((f) => (
          <div key={f.label} className={f.wide ? 'list-card-wide' : undefined}>
            <dt>{f.label}</dt>
            <dd className={f.num ? 'num' : undefined}>{f.value}</dd>
          </div>
        ))}
      </dl>
      {actions && <div className="list-card-actions">{actions}</div>}
    </li>
  );
}
