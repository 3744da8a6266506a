import { PAGE_SIZE } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListPage, nextPageParam } from '../../components/ItemList';
import { trpc } from '../../trpc';

const useProjects = (q: string) => trpc.projects.list.useInfiniteQuery({ q, limit: PAGE_SIZE }, { getNextPageParam: nextPageParam });

/** /projects (accepts q): search bound to ?q=, the projects table (cards on small screens), infinite scroll. */
export default function ProjectsPage() {
  return (
    <ItemListPage
      title={M.navProjects}
      searchPlaceholder="Search projects by title, tag or description"
      emptyText={M.noProjects}
      purpose="Projects gather people and teams around a piece of work, with or without a fundraiser."
      newPath="/projects/new"
      newText="+ New project"
      startText="Start the first project"
      useList={useProjects}
      basePath="/projects"
      noun="project"
      renderFavorite={(item) => <FavoriteButton targetType="project" targetId={item._id} itemName={item.title} mode="oneWay" />}
    />
  );
}
