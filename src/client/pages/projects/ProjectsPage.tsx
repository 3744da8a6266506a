import { keepPreviousData } from '@tanstack/react-query';
import { PAGE_SIZE, type ProjectSort } from '../../../shared/constants';
import { M } from '../../../shared/messages';
import type { ProjectListQuery } from '../../../shared/schemas/projects';
import { FavoriteButton } from '../../components/FavoriteButton';
import { ItemListPage, nextPageParam } from '../../components/ItemList';
import type { ListFilters, SortChoice } from '../../components/ListFilters';
import { trpc } from '../../trpc';

/** The sort choice of /projects, the default first: a project has no money or date to order by. */
const PROJECT_SORT_CHOICES: readonly SortChoice<ProjectSort>[] = [
  { value: 'newest', label: 'Newest' },
  { value: 'supported', label: 'Most followers' },
];

/** The list's input: the search and only the choices that differ from the defaults. */
function projectsInput({ q, type, sort }: ListFilters): ProjectListQuery {
  const input: ProjectListQuery = { q, limit: PAGE_SIZE };
  if (type) input.type = type;
  if (sort) input.sort = sort as ProjectSort;
  return input;
}

const useProjects = (filters: ListFilters) =>
  trpc.projects.list.useInfiniteQuery(projectsInput(filters), { getNextPageParam: nextPageParam, placeholderData: keepPreviousData });

/**
 * /projects (accepts q, type, sort): search bound to ?q=, the category and sort choices, the
 * projects table (cards on small screens), infinite scroll.
 */
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
      sorts={PROJECT_SORT_CHOICES}
      useList={useProjects}
      basePath="/projects"
      noun="project"
      renderFavorite={(item) => <FavoriteButton targetType="project" targetId={item._id} itemName={item.title} mode="oneWay" />}
    />
  );
}
