/**
 * Normalised tags: lower-cased, trimmed, empty and duplicate ones dropped. In a module of its own,
 * without zod, so the client's tag inputs and filters do not load the schemas (schemas/common.ts
 * uses it for TagsSchema and passes it on).
 */
export function normaliseTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim().toLowerCase();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}
