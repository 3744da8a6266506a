/**
 * The Status select above the admin's payouts and disputes: which of them the table lists.
 * `id` is the select's (the dialogs send the focus back to it when the table is gone).
 */
export function StatusFilter<F extends string>({
  id,
  value,
  options,
  onChange,
}: {
  id: string;
  value: F;
  options: ReadonlyArray<{ id: F; label: string }>;
  onChange: (value: F) => void;
}) {
  return (
    <div className="admin-toolbar">
      <div className="field admin-filter">
        <label htmlFor={id}>Status</label>
        <select id={id} value={value} onChange={(e) => onChange(e.target.value as F)}>
          {options.map((f) => (
            <option key={f.id} value={f.id}>
              {f.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
