import type { Deps } from '../../deps';
import { createTeamsContext } from './context';
import { teamCreate } from './create';
import { teamReads } from './get';
import { teamInvites } from './invite';
import { teamJoining } from './join';
import { teamLists } from './list';
import { teamMembersAdmin } from './members';
import { teamSuggestions } from './suggested';
import { teamTags } from './tags';
import { teamUpdates } from './update';

/**
 * The Teams service: one file per operation (list, get, create, update, invite, members, join,
 * tags, suggested) over the shared reads and rules of context.ts, put together here for the
 * router and the REST door.
 */
export function createTeamsService(deps: Deps) {
  const ctx = createTeamsContext(deps);
  // biome-ignore-start lint/nursery/noMisusedPromises: each part is a plain object of functions (read as a Promise by the rule's inference)
  return {
    ...teamLists(ctx),
    ...teamReads(ctx),
    ...teamCreate(ctx),
    ...teamUpdates(ctx),
    ...teamInvites(ctx),
    ...teamMembersAdmin(ctx),
    ...teamJoining(ctx),
    ...teamTags(ctx),
    ...teamSuggestions(ctx),
  };
  // biome-ignore-end lint/nursery/noMisusedPromises: see above
}

export type TeamsService = ReturnType<typeof createTeamsService>;
