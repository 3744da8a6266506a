import { Link } from 'react-router-dom';
import { usePageTitle } from '../../hooks/usePageTitle';
import { OwnProjects } from './OwnLists';

/** /myProjects (signed in only): my projects; with none, the spec's 'Your projects will appear here.' */
export default function MyProjectsPage() {
  usePageTitle('My projects');
  return (
    <section className="page">
      <div className="page-head">
        <h1>My projects</h1>
        <Link className="button" to="/projects/new">
          + New project
        </Link>
      </div>
      <OwnProjects />
    </section>
  );
}
