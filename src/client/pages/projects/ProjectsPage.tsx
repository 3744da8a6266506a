import { Link } from 'react-router-dom';
import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { useSession } from '../../auth/useSession';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListView, nextPageParam, SearchBox, useSearchQuery } from '../../components/ItemList';
import { usePageTitle } from '../../hooks/usePageTitle';
import { trpc } from '../../trpc';

/** /projects (accepts q): search bound to ?q=, the projects table, infinite scroll. */
export default function ProjectsPage() {
  usePageTitle(M.navProjects);
  const { isSignedIn } = useSession();
  const [q, setQ] = useSearchQuery();
  const list = trpc.projects.list.useInfiniteQuery({ q, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });
  return (
    <section className="page list-page">
      <div className="page-head">
        <h1>{M.navProjects}</h1>
        {isSignedIn && (
          <Link className="button" to="/projects/new">
            + New project
          </Link>
        )}
      </div>
      <SearchBox q={q} onSearch={setQ} placeholder="Search projects by title, tag or description" />
      <ItemListView
        list={list}
        basePath="/projects"
        noun="project"
        emptyText={M.noProjects}
        renderFavorite={(item) => <FavoriteButton targetType="project" targetId={item._id} itemName={item.title} mode="oneWay" />}
      />
    </section>
  );
}
